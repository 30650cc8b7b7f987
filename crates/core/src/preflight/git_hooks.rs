//! Where CodeGraph may write git hooks. With file watching off (`CODEGRAPH_NO_WATCH=1`, a Windows
//! drive under WSL) CodeGraph 1.6.1's init appends a marked block to the post-commit, post-merge
//! and post-checkout hooks, and its uninit strips that block again (sync/git-hooks.js), in
//! whatever directory `git rev-parse --git-path hooks` names, through any link: another project's
//! when `.git` is a file (`gitdir: ../other/.git`, as worktrees and submodules have) or a link, when
//! `commondir` or `core.hooksPath` (any config git reads, or the user's `GIT_*`) points out, or
//! when the workspace is a subdirectory of a repository. A command that writes the index is
//! therefore run with the hooks directory pinned (`environment.rs`): the workspace's own
//! `.git/hooks` when this module finds one, else none at all. Only metadata is read.

use std::path::{Path, PathBuf};

/// The hooks CodeGraph writes (its `DEFAULT_SYNC_HOOKS`).
pub const SYNC_HOOKS: &[&str] = &["post-commit", "post-merge", "post-checkout"];

/// `<home>/.git/hooks`, when writing CodeGraph's hooks there writes only into the workspace: `.git`
/// is a directory of its own (not a file, not a link), `hooks` in it is a directory or absent
/// (CodeGraph creates it), and each hook CodeGraph writes is absent or a regular file with no other
/// name (a link, or a hard link, would carry the write elsewhere). `home` is the workspace with
/// its links resolved (what CodeGraph's cwd is).
pub fn own_git_hooks(workspace: &Path, home: &Path) -> Option<PathBuf> {
  let real_dir = |p: &Path| {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink())
  };
  if !real_dir(&workspace.join(".git")) {
    return None;
  }
  let hooks = workspace.join(".git").join("hooks");
  match std::fs::symlink_metadata(&hooks) {
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
    _ if real_dir(&hooks) => {
      if !SYNC_HOOKS
        .iter()
        .all(|h| lone_file_or_absent(&hooks.join(h)))
      {
        return None;
      }
    }
    _ => return None,
  }
  Some(home.join(".git").join("hooks"))
}

/// Absent, or a regular file that is not also reached by another name.
fn lone_file_or_absent(p: &Path) -> bool {
  match std::fs::symlink_metadata(p) {
    Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    Ok(m) if !m.is_file() => false,
    #[cfg(unix)]
    Ok(m) => {
      use std::os::unix::fs::MetadataExt;
      m.nlink() == 1
    }
    #[cfg(target_family = "wasm")]
    Ok(_) => crate::host::stat(p, false).is_ok_and(|s| s.nlink == 1),
    #[cfg(not(any(unix, target_family = "wasm")))]
    Ok(_) => true,
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn ws() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git").join("hooks")).unwrap();
    dir
  }

  #[test]
  fn a_git_directory_of_its_own_is_the_workspaces() {
    let dir = ws();
    let p = dir.path();
    assert_eq!(own_git_hooks(p, p), Some(p.join(".git").join("hooks")));
    std::fs::remove_dir(p.join(".git").join("hooks")).unwrap();
    assert_eq!(own_git_hooks(p, p), Some(p.join(".git").join("hooks")));
  }

  #[test]
  fn a_git_file_or_none_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    assert_eq!(own_git_hooks(p, p), None);
    std::fs::write(p.join(".git"), "gitdir: ../other/.git\n").unwrap();
    assert_eq!(own_git_hooks(p, p), None);
  }

  #[cfg(unix)]
  #[test]
  fn links_are_not() {
    let other = ws();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::os::unix::fs::symlink(other.path().join(".git"), p.join(".git")).unwrap();
    assert_eq!(own_git_hooks(p, p), None);

    let dir = ws();
    let p = dir.path();
    let hook = other.path().join(".git/hooks/post-commit");
    std::fs::write(&hook, "#!/bin/sh\n").unwrap();
    std::fs::hard_link(&hook, p.join(".git/hooks/post-commit")).unwrap();
    assert_eq!(own_git_hooks(p, p), None);
    std::fs::remove_file(p.join(".git/hooks/post-commit")).unwrap();
    std::os::unix::fs::symlink(&hook, p.join(".git/hooks/post-merge")).unwrap();
    assert_eq!(own_git_hooks(p, p), None);
    std::fs::remove_file(p.join(".git/hooks/post-merge")).unwrap();
    std::fs::remove_dir(p.join(".git/hooks")).unwrap();
    std::os::unix::fs::symlink(other.path().join(".git/hooks"), p.join(".git/hooks")).unwrap();
    assert_eq!(own_git_hooks(p, p), None);
  }
}
