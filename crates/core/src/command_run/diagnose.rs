//! `diagnose`: what a command would find in a workspace, without running one.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::child::Cancel;
pub use crate::diagnosis::Diagnosis;
use crate::discovery::package_cli;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::CodegraphError;
use crate::off_thread::{ask, Answer, Check};
use crate::version::Probe;

/// How long `diagnose` waits for a `--version` probe (package metadata needs none): a slow CLI
/// must not stall Pi's `session_start`.
const DIAGNOSE_VERSION_WAIT: Duration = Duration::from_secs(1);
/// The bound on a diagnosis's own checks and probe.
const DIAGNOSE_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn diagnose(cwd: String, env: EnvSnapshot) -> Diagnosis {
  diagnose_for(cwd, None, env).await
}

/// [`diagnose`] of a root other than Pi's workspace (`on_behalf_of`): what a call run there on
/// its behalf would find (code inside either is kept from the child).
pub async fn diagnose_for(
  cwd: String,
  on_behalf_of: Option<PathBuf>,
  env: EnvSnapshot,
) -> Diagnosis {
  let deadline = Instant::now() + DIAGNOSE_TIMEOUT;
  let check = Check::Survey {
    cwd,
    on_behalf_of,
    env: env.vars().to_vec(),
    package_cli: package_cli(),
  };
  let (mut d, to_probe) = match ask(check, deadline, DIAGNOSE_TIMEOUT, &Cancel::default()).await {
    Ok(Answer::Survey {
      diagnosis,
      to_probe,
    }) => (*diagnosis, to_probe),
    // The survey's own problem (a workspace it cannot use).
    Err(e @ CodegraphError::Relayed { .. }) => return Diagnosis::failed(e),
    // Not within the bound (a hung mount), or the checks could not run.
    _ => return Diagnosis::unanswered(),
  };
  if let Some(p) = to_probe {
    // The probe's deadline is the wait: nothing of a diagnosis outlives it.
    let wait_until = Instant::now() + DIAGNOSE_VERSION_WAIT;
    let mut probe = Probe::start(&p.launch, &p.workspace, &p.vars, wait_until);
    d.cli_version = probe
      .within(DIAGNOSE_VERSION_WAIT + Duration::from_millis(600))
      .await;
  }
  d
}
