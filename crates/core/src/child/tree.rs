//! The CLI's whole process tree: kept in a guard that kills it on drop, stopped gracefully on a
//! timeout or cancel, and searched for descendants that left its process group.

use std::mem::ManuallyDrop;

use process_wrap::tokio::{ChildWrapper, CommandWrap};

use super::Control;
use crate::exit_verdict::Exit;

/// Starts `command` as the leader of its own process group (Unix) or in a job object (Windows),
/// killed on drop: "kill" then means the whole tree (CodeGraph's npm shim starts the real CLI as
/// a child; killing only the shim would orphan it).
pub(crate) fn spawn_tree(
  command: tokio::process::Command,
) -> std::io::Result<Box<dyn ChildWrapper>> {
  let mut wrap = CommandWrap::from(command);
  #[cfg(unix)]
  wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
  #[cfg(windows)]
  wrap.wrap(process_wrap::tokio::JobObject);
  wrap.wrap(process_wrap::tokio::KillOnDrop);
  wrap.spawn()
}

/// Kills the whole tree when dropped, whatever path the run leaves by (an early return, a
/// panic, or the future itself being dropped), and reaps the CLI. While it lives, the host watch
/// knows the group, so the tree also dies if the host process does.
#[cfg_attr(not(unix), allow(dead_code))] // the pid is only used by the Unix host watch
pub(crate) struct TreeGuard(pub(crate) ManuallyDrop<Box<dyn ChildWrapper>>, Option<u32>);

impl TreeGuard {
  pub(crate) fn new(child: Box<dyn ChildWrapper>) -> Self {
    let pgid = child.id();
    #[cfg(unix)]
    if let Some(pgid) = pgid {
      crate::host_watch::watch(pgid);
    }
    Self(ManuallyDrop::new(child), pgid)
  }
}

impl Drop for TreeGuard {
  fn drop(&mut self) {
    let _ = self.0.start_kill();
    #[cfg(unix)]
    if let Some(pgid) = self.1 {
      crate::host_watch::unwatch(pgid);
    }
    // SAFETY: taken once, here, and the field is never used again (the guard is being dropped).
    let mut child = unsafe { ManuallyDrop::take(&mut self.0) };
    // A CLI the run did not wait for (a tree not dead within `terminate`'s grace, an early
    // return, a dropped run) would go to tokio's orphan queue, which reaps only best-effort, when
    // its driver next sees a SIGCHLD: a zombie of the host meanwhile. A task of its own waits for
    // it instead (the wait of one already reaped returns at once).
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
      runtime.spawn(async move {
        let _ = child.wait().await;
      });
    }
  }
}

impl Control for TreeGuard {
  async fn wait(&mut self) -> std::io::Result<Exit> {
    self.0.wait().await.map(Exit::of)
  }

  fn ask_to_stop(&mut self) -> bool {
    #[cfg(unix)]
    let _ = self.0.signal(libc::SIGTERM);
    cfg!(unix)
  }

  fn kill(&mut self) {
    let _ = self.0.start_kill();
  }

  /// Linux: SIGKILLs the CLI's descendants that left its process group (`setpgid`), found
  /// through `/proc` while the CLI still runs; the group kill that follows reaches the rest. A
  /// descendant whose parent already exited has been re-parented and is out of reach, as is a
  /// `setsid` daemon that was orphaned (README, "Nothing left running").
  fn kill_strays(&self) {
    #[cfg(target_os = "linux")]
    if let Some(root) = self.0.id() {
      for pid in crate::pid::descendants_outside_group(root) {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
          // SAFETY: kill(2) has no memory preconditions. The pid was a live descendant a moment
          // ago; /proc lists only children not yet reaped, so it cannot have been recycled.
          unsafe { libc::kill(pid, libc::SIGKILL) };
        }
      }
    }
  }
}
