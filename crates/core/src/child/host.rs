//! A child its host started: the WebAssembly build's, where WASI can neither start nor signal a
//! process. The host (the Node runner, lib/runners/node/child.js) starts the CLI when the core
//! asks ([`set_launcher`]), pushes what its pipes give and how it exited into the [`Feed`], and
//! signals the child's tree when the core says; [`super::drive`] runs it as it runs a native child.
//! Plain Rust, built for both targets (the native tests drive it with a launcher of their own).

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;

use super::{drive, spawn_error, Control, RunOutput, RunSpec, Started};
use crate::errors::{CodegraphError, SpawnReason};
use crate::exit_verdict::Exit;

/// What the host is asked to start: `program` with `args` (an argument array, never a shell),
/// in `cwd`, with exactly `env`, stdin /dev/null, stdout and stderr piped.
#[derive(Debug, Clone)]
pub struct HostLaunch {
  pub program: PathBuf,
  /// What the user has (the launcher's executable), for the host's own records.
  pub executable: PathBuf,
  pub args: Vec<OsString>,
  pub cwd: PathBuf,
  pub env: Vec<(OsString, OsString)>,
  /// Nothing waits for it (the version probe): its child must not keep the host alive.
  pub background: bool,
}

/// How the core signals a started child's tree through its host: "SIGTERM", "SIGKILL", "strays".
pub type Signal = Box<dyn Fn(&str) + Send + Sync>;

/// The host's answer to a launch: the child started (`posix`: its tree may be asked to stop
/// before it is killed; not on Windows), or the OS error its start failed with.
pub type Launched = io::Result<(Signal, bool)>;

/// Starts a child for the core: feeds its pipes and exit into the [`Feed`] and answers once.
pub type LaunchFn = dyn Fn(HostLaunch, Feed, oneshot::Sender<Launched>) + Send + Sync;

static LAUNCHER: RwLock<Option<Arc<LaunchFn>>> = RwLock::new(None);

/// Sets how the host starts a child (the WebAssembly build's addon sets it once it has a host).
pub fn set_launcher(launch: Arc<LaunchFn>) {
  *LAUNCHER
    .write()
    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(launch);
}

/// The host's side of one started child: what its pipes gave, and how it exited.
pub struct Feed {
  stdout: Option<UnboundedSender<Vec<u8>>>,
  stderr: Option<UnboundedSender<Vec<u8>>>,
  exits: Option<UnboundedSender<Exit>>,
}

impl Feed {
  /// A chunk of stdout; false once the core reads no more (the host may stop reading).
  pub fn stdout(&self, chunk: Vec<u8>) -> bool {
    self
      .stdout
      .as_ref()
      .is_some_and(|tx| tx.send(chunk).is_ok())
  }

  /// A chunk of stderr; false once the core reads no more.
  pub fn stderr(&self, chunk: Vec<u8>) -> bool {
    self
      .stderr
      .as_ref()
      .is_some_and(|tx| tx.send(chunk).is_ok())
  }

  /// Stdout closed.
  pub fn end_stdout(&mut self) {
    self.stdout = None;
  }

  /// Stderr closed.
  pub fn end_stderr(&mut self) {
    self.stderr = None;
  }

  /// The child exited: its code, or the signal that ended it.
  pub fn exited(&mut self, exit: Exit) {
    if let Some(tx) = self.exits.take() {
      let _ = tx.send(exit);
    }
  }
}

/// Starts `spec`'s CLI through the host and runs it to the end ([`super::drive`]): the WebAssembly
/// build's [`super::run`].
pub async fn run(spec: RunSpec<'_>) -> Result<RunOutput, CodegraphError> {
  let started = std::time::Instant::now();
  let child = start(&spec).await?;
  drive(child, &spec.bounds, started).await
}

/// Starts `spec`'s CLI through the host: a file the kernel would not execute itself is refused
/// first (the host's spawn would hand it to /bin/sh).
async fn start(spec: &RunSpec<'_>) -> Result<Started<Pipe, Pipe, HostControl>, CodegraphError> {
  let launch = spec.launch;
  if let Some(why) = &launch.exec_refused {
    return Err(CodegraphError::Spawn {
      reason: SpawnReason::ExecFormat {
        executable: launch.executable.clone(),
        why: why.clone(),
      },
    });
  }
  let host_launch = LAUNCHER
    .read()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .clone();
  let (feed, pipes) = feed_and_pipes();
  let (answer, answered) = oneshot::channel();
  let mut args = launch.prefix.clone();
  args.extend(spec.args.iter().cloned());
  let asked = HostLaunch {
    program: launch.program.clone(),
    executable: launch.executable.clone(),
    args,
    cwd: spec.cwd.to_path_buf(),
    env: spec.env.to_vec(),
    background: spec.background,
  };
  let no_host = || io::Error::other("no host to start the child");
  let launched = match host_launch {
    Some(host_launch) => {
      host_launch(asked, feed, answer);
      answered.await.unwrap_or_else(|_| Err(no_host()))
    }
    None => Err(no_host()),
  };
  let (signal, posix) = launched.map_err(|e| spawn_error(launch, &e))?;
  Ok(pipes.started(signal, posix))
}

/// A child's two ends: the [`Feed`] the host pushes into, and the [`Pipes`] the core reads.
pub fn feed_and_pipes() -> (Feed, Pipes) {
  let (out_tx, out_rx) = unbounded_channel();
  let (err_tx, err_rx) = unbounded_channel();
  let (exit_tx, exit_rx) = unbounded_channel();
  let feed = Feed {
    stdout: Some(out_tx),
    stderr: Some(err_tx),
    exits: Some(exit_tx),
  };
  let pipes = Pipes {
    stdout: Pipe::new(out_rx),
    stderr: Pipe::new(err_rx),
    exits: exit_rx,
  };
  (feed, pipes)
}

/// What the core reads of a child the host feeds: its pipes and its exit.
pub struct Pipes {
  stdout: Pipe,
  stderr: Pipe,
  exits: UnboundedReceiver<Exit>,
}

impl Pipes {
  /// The started child, its tree signalled through `signal` (`posix`: it may be asked to stop
  /// before it is killed).
  pub fn started(self, signal: Signal, posix: bool) -> Started<Pipe, Pipe, HostControl> {
    Started {
      stdout: self.stdout,
      stderr: self.stderr,
      control: HostControl {
        exit: None,
        exits: self.exits,
        signal,
        posix,
      },
    }
  }
}

/// The host's child as [`super::drive`] controls it: its exit as the host said it, and its tree
/// signalled through the host. Dropped, it kills what is left of the tree.
pub struct HostControl {
  exit: Option<Exit>,
  exits: UnboundedReceiver<Exit>,
  signal: Signal,
  posix: bool,
}

impl Control for HostControl {
  async fn wait(&mut self) -> io::Result<Exit> {
    if let Some(exit) = self.exit {
      return Ok(exit);
    }
    match self.exits.recv().await {
      Some(exit) => {
        self.exit = Some(exit);
        Ok(exit)
      }
      None => Err(io::Error::other("the host lost the child before it exited")),
    }
  }

  fn ask_to_stop(&mut self) -> bool {
    if self.posix {
      (self.signal)("SIGTERM");
    }
    self.posix
  }

  fn kill(&mut self) {
    (self.signal)("SIGKILL");
  }

  fn kill_strays(&self) {
    (self.signal)("strays");
  }
}

impl Drop for HostControl {
  fn drop(&mut self) {
    (self.signal)("SIGKILL");
  }
}

/// A pipe's chunks as the host pushed them, read as a stream (its end: the host closed it).
pub struct Pipe {
  chunks: UnboundedReceiver<Vec<u8>>,
  pending: Vec<u8>,
  at: usize,
}

impl Pipe {
  fn new(chunks: UnboundedReceiver<Vec<u8>>) -> Self {
    Self {
      chunks,
      pending: Vec::new(),
      at: 0,
    }
  }
}

impl AsyncRead for Pipe {
  fn poll_read(
    mut self: Pin<&mut Self>,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
  ) -> Poll<io::Result<()>> {
    while self.at >= self.pending.len() {
      match self.chunks.poll_recv(cx) {
        Poll::Ready(Some(chunk)) => {
          self.pending = chunk;
          self.at = 0;
        }
        Poll::Ready(None) => return Poll::Ready(Ok(())), // the end: nothing filled
        Poll::Pending => return Poll::Pending,
      }
    }
    let n = buf.remaining().min(self.pending.len() - self.at);
    let at = self.at;
    buf.put_slice(&self.pending[at..at + n]);
    self.at += n;
    Poll::Ready(Ok(()))
  }
}
