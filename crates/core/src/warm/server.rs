//! One `codegraph serve --mcp --no-watch` process and the JSON-RPC over its stdio: requests
//! written one line each, replies read by one task and handed to the call that waits for that
//! id. Its whole tree is in a [`TreeGuard`] (killed on drop, and by the host watch if the host
//! dies); CodeGraph's server also exits when its stdin closes.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdin;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::caps::DRAIN_LIMIT_BYTES;
use crate::child::terminate;
use crate::child::tree::{spawn_tree, TreeGuard};
use crate::child::Cancel;
use crate::discovery::Launch;
use crate::errors::CodegraphError;
use crate::limits::StderrTail;

/// The MCP revision asked for (CodeGraph 1.6.1 answers it as asked).
const PROTOCOL: &str = "2025-06-18";
/// A reply line's bound: the CLI's drain limit, twice over for JSON's escapes. A longer line ends
/// the server (its reply is not read whole) and the call runs as a process, which drains.
const MAX_REPLY_BYTES: usize = 2 * DRAIN_LIMIT_BYTES as usize + 64 * 1024;
/// How long a stopping server gets to exit after its stdin closes (CodeGraph's own teardown took
/// 55 ms on tokio) before its tree is terminated.
const CLOSE_GRACE: Duration = Duration::from_millis(1500);

/// How a call to the server ended.
pub enum CallEnd {
  /// The tool's first text and its `isError`, as the CLI prints and exits on them.
  Answered { text: String, is_error: bool },
  /// The call's own deadline or cancel: the server is to be stopped.
  Stopped(CodegraphError),
  /// The server exited, overflowed a reply, or answered out of protocol: the call runs as a process.
  Broken,
  /// The server answered this request with a JSON-RPC error: this call runs as a process; the
  /// server stays.
  Declined,
}

/// A reply's `result`, or its JSON-RPC `error` (`Err`).
type Reply = Result<Value, ()>;

/// Why a request has no result.
enum NoResult {
  /// The deadline (`timeout`'s) or cancel.
  Stopped(CodegraphError),
  Broken,
  Declined,
}

#[derive(Default)]
struct Pending {
  waiting: HashMap<u64, oneshot::Sender<Reply>>,
  /// No reply will come any more (the server's stdout ended or overflowed).
  closed: bool,
}

pub struct Server {
  pub pid: Option<u32>,
  stdin: tokio::sync::Mutex<Option<ChildStdin>>,
  pending: Arc<Mutex<Pending>>,
  next_id: AtomicU64,
  guard: tokio::sync::Mutex<Option<TreeGuard>>,
  stderr: Arc<Mutex<StderrTail>>,
}

impl Server {
  /// Starts the server in `workspace` with the child environment every command gets, and
  /// completes MCP's handshake by `deadline`. `Err(None)`: it could not start or answer (the call
  /// runs as a process); `Err(Some(e))`: the call's own cancel came first.
  pub async fn start(
    launch: &Launch,
    workspace: &Path,
    env: &[(OsString, OsString)],
    deadline: Instant,
    timeout: Duration,
    cancel: &Cancel,
  ) -> Result<Self, Option<CodegraphError>> {
    let mut command = tokio::process::Command::new(&launch.program);
    command
      .args(&launch.prefix)
      .args(["serve", "--mcp", "--no-watch"])
      .current_dir(workspace)
      .env_clear()
      .envs(env.iter().map(|(k, v)| (k, v)))
      // One process, no detached daemon that outlives the session; no watcher (the index is
      // written by the user's verbs and auto sync, one writer at a time, as without a server).
      .env("CODEGRAPH_NO_DAEMON", "1")
      .env("CODEGRAPH_NO_WATCH", "1")
      .stdin(Stdio::piped())
      .stdout(Stdio::piped())
      .stderr(Stdio::piped());
    let Ok(mut child) = spawn_tree(command) else {
      return Err(None);
    };
    let pid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) = (
      child.stdin().take(),
      child.stdout().take(),
      child.stderr().take(),
    ) else {
      return Err(None);
    };
    let server = Self {
      pid,
      stdin: tokio::sync::Mutex::new(Some(stdin)),
      pending: Arc::default(),
      next_id: AtomicU64::new(1),
      guard: tokio::sync::Mutex::new(Some(TreeGuard::new(child))),
      stderr: Arc::new(Mutex::new(StderrTail::new())),
    };
    tokio::spawn(read_replies(
      BufReader::with_capacity(64 * 1024, stdout),
      server.pending.clone(),
    ));
    tokio::spawn(drain_stderr(stderr, server.stderr.clone()));
    let init = json!({
      "protocolVersion": PROTOCOL,
      "capabilities": {},
      "clientInfo": { "name": "pi-codegraph", "version": env!("CARGO_PKG_VERSION") },
    });
    match server
      .request("initialize", init, deadline, timeout, cancel)
      .await
    {
      Ok(_) => {}
      Err(why) => {
        server.stop().await;
        return Err(match why {
          NoResult::Stopped(e) => Some(e),
          NoResult::Broken | NoResult::Declined => None,
        });
      }
    }
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    if server.write(&initialized).await.is_err() {
      server.stop().await;
      return Err(None);
    }
    Ok(server)
  }

  /// Asks `tool` with `arguments`; see [`CallEnd`].
  pub async fn call(
    &self,
    tool: &str,
    arguments: Value,
    deadline: Instant,
    timeout: Duration,
    cancel: &Cancel,
  ) -> CallEnd {
    let params = json!({ "name": tool, "arguments": arguments });
    let result = match self
      .request("tools/call", params, deadline, timeout, cancel)
      .await
    {
      Ok(result) => result,
      Err(NoResult::Stopped(e)) => return CallEnd::Stopped(e),
      Err(NoResult::Broken) => return CallEnd::Broken,
      Err(NoResult::Declined) => return CallEnd::Declined,
    };
    let text = result
      .pointer("/content/0/text")
      .and_then(Value::as_str)
      .unwrap_or_default()
      .to_string();
    let is_error = result
      .get("isError")
      .and_then(Value::as_bool)
      .unwrap_or(false);
    CallEnd::Answered { text, is_error }
  }

  /// Whether replies can still come.
  pub fn alive(&self) -> bool {
    !self.pending.lock().map_or(true, |p| p.closed)
  }

  /// Closes its stdin (CodeGraph's server then releases its files and exits, within
  /// `CLOSE_GRACE`), then stops what is left of its tree. Idempotent.
  pub async fn stop(&self) {
    drop(self.stdin.lock().await.take());
    let Some(mut guard) = self.guard.lock().await.take() else {
      return;
    };
    let _ = tokio::time::timeout(CLOSE_GRACE, guard.0.wait()).await;
    // Exited or not, whatever of its tree is left (a worker it started) is stopped with it.
    terminate(&mut guard).await;
    drop(guard);
  }

  /// A request and its reply's `result`.
  async fn request(
    &self,
    method: &str,
    params: Value,
    deadline: Instant,
    timeout: Duration,
    cancel: &Cancel,
  ) -> Result<Value, NoResult> {
    let id = self.next_id.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = oneshot::channel();
    {
      let mut pending = self.pending.lock().map_err(|_| NoResult::Broken)?;
      if pending.closed {
        return Err(NoResult::Broken);
      }
      pending.waiting.insert(id, tx);
    }
    let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let exchange = async {
      self.write(&message).await.map_err(|()| NoResult::Broken)?;
      match rx.await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(())) => Err(NoResult::Declined),
        Err(_) => Err(NoResult::Broken),
      }
    };
    let outcome = tokio::select! {
      biased;
      () = cancel.notified() => Err(NoResult::Stopped(CodegraphError::Cancelled { partial_bytes: 0, partial_text: String::new() })),
      () = tokio::time::sleep_until(deadline) => Err(NoResult::Stopped(self.timed_out(timeout))),
      r = exchange => r,
    };
    if let Ok(mut pending) = self.pending.lock() {
      pending.waiting.remove(&id);
    }
    outcome
  }

  async fn write(&self, message: &Value) -> Result<(), ()> {
    let mut line = serde_json::to_vec(message).map_err(|_| ())?;
    line.push(b'\n');
    let mut stdin = self.stdin.lock().await;
    let stdin = stdin.as_mut().ok_or(())?;
    stdin.write_all(&line).await.map_err(|_| ())?;
    stdin.flush().await.map_err(|_| ())
  }

  fn timed_out(&self, timeout: Duration) -> CodegraphError {
    let stderr_tail = self
      .stderr
      .lock()
      .map(|t| t.clone().finish())
      .unwrap_or_default();
    CodegraphError::Timeout {
      timeout_ms: timeout.as_millis() as u64,
      stderr_tail,
      stalled: false,
      partial_bytes: 0,
      partial_text: String::new(),
      writer_seen: None,
    }
  }
}

/// Hands each reply to the call waiting for its id; at the end of stdout, or at a line over the
/// bound, no reply comes any more and every waiting call learns so.
async fn read_replies<R: AsyncBufRead + Unpin>(mut stdout: R, pending: Arc<Mutex<Pending>>) {
  let mut line = Vec::new();
  while let Ok(true) = next_line(&mut stdout, &mut line, MAX_REPLY_BYTES).await {
    // A line that is not a reply to us (a log line, a notification, a request) is not ours to read.
    let Ok(message) = serde_json::from_slice::<Value>(&line) else {
      continue;
    };
    let Some(id) = message.get("id").and_then(Value::as_u64) else {
      continue;
    };
    if message.get("method").is_some() {
      continue;
    }
    let reply = message.get("result").cloned().ok_or(());
    if let Some(tx) = pending.lock().ok().and_then(|mut p| p.waiting.remove(&id)) {
      let _ = tx.send(reply);
    }
  }
  if let Ok(mut pending) = pending.lock() {
    pending.closed = true;
    pending.waiting.clear(); // each waiting call's receiver now ends: Broken
  }
}

/// The next line (without its newline) into `line`: `Ok(false)` at the end of input; an error
/// past `max` bytes.
async fn next_line<R: AsyncBufRead + Unpin>(
  r: &mut R,
  line: &mut Vec<u8>,
  max: usize,
) -> std::io::Result<bool> {
  line.clear();
  loop {
    let buf = r.fill_buf().await?;
    if buf.is_empty() {
      return Ok(!line.is_empty());
    }
    if let Some(i) = buf.iter().position(|&b| b == b'\n') {
      line.extend_from_slice(&buf[..i]);
      r.consume(i + 1);
      return Ok(true);
    }
    let n = buf.len();
    line.extend_from_slice(buf);
    r.consume(n);
    if line.len() > max {
      return Err(std::io::Error::other("reply over the bound"));
    }
  }
}

async fn drain_stderr(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<StderrTail>>) {
  let mut buf = vec![0u8; 8 * 1024];
  while let Ok(n) = stderr.read(&mut buf).await {
    if n == 0 {
      break;
    }
    if let Ok(mut tail) = tail.lock() {
      tail.push(&buf[..n]);
    }
  }
}
