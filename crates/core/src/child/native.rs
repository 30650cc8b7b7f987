//! The native build's child: started with tokio as the leader of its own process group (Unix)
//! or in a job object (Windows), its tree kept in a guard that kills it on drop (`tree.rs`).

use std::process::Stdio;

use tokio::process::{ChildStderr, ChildStdout};

use super::tree::{spawn_tree, TreeGuard};
use super::{spawn_error, RunSpec, Started};
use crate::errors::CodegraphError;

/// Starts `spec`'s CLI: argv as an array (never a shell), the environment exactly `spec.env`,
/// stdin /dev/null, stdout and stderr piped.
pub(super) fn start(
  spec: &RunSpec<'_>,
) -> Result<Started<ChildStdout, ChildStderr, TreeGuard>, CodegraphError> {
  let mut command = tokio::process::Command::new(&spec.launch.program);
  command
    .args(&spec.launch.prefix)
    .args(spec.args)
    .current_dir(spec.cwd)
    .env_clear()
    .envs(spec.env.iter().map(|(k, v)| (k, v)))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
  let child = spawn_tree(command).map_err(|e| spawn_error(spec.launch, &e))?;
  let mut guard = TreeGuard::new(child);
  let stdout = guard.0.stdout().take().expect("stdout is piped");
  let stderr = guard.0.stderr().take().expect("stderr is piped");
  Ok(Started {
    stdout,
    stderr,
    control: guard,
  })
}
