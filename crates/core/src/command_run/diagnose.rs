//! `diagnose`: what a command would find in a workspace, without running one.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

pub use crate::diagnosis::Diagnosis;
use crate::env_snapshot::EnvSnapshot;
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
  let checks_env = env.clone();
  let checks = tokio::task::spawn_blocking(move || {
    crate::ready::survey(&cwd, on_behalf_of.as_deref(), &checks_env)
  });
  let (mut d, to_probe) = match crate::clock::timeout_at(deadline, checks).await {
    Ok(Ok(Ok(survey))) => Diagnosis::of(survey),
    Ok(Ok(Err(e))) => return Diagnosis::failed(e),
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
