//! Unit tests of `full_output` (they reach its private items).

use std::path::Path;

use super::*;

fn target(tmp: &Path, ws: &Path) -> SpillTarget {
  SpillTarget::Find {
    tmpdir_var: Some(tmp.to_path_buf()),
    workspace: ws.to_path_buf(),
  }
}

#[test]
fn spill_is_private_cleaned_and_released_by_path() {
  let tmp = tempfile::tempdir().unwrap();
  let ws = tempfile::tempdir().unwrap();
  let mut spill = Spill::create(&target(tmp.path(), ws.path())).unwrap();
  spill.write(b"hel\x1b[31mlo\n").unwrap();
  let FullOutput::Kept { path, complete, .. } = spill.finish(true) else {
    panic!("no file")
  };
  assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
  assert!(complete);
  assert!(path.starts_with(tmp.path().join(dir_name())));
  #[cfg(unix)]
  {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
  }
  assert_eq!(release(&[PathBuf::from("/not/ours")]), 0);
  assert!(path.exists());
  assert_eq!(release(std::slice::from_ref(&path)), 1);
  assert!(!path.exists());
}

#[cfg(unix)]
#[test]
fn never_inside_the_workspace() {
  let ws = tempfile::tempdir().unwrap();
  let inside = ws.path().join("tmp");
  std::fs::create_dir(&inside).unwrap();
  let dir = private_dir(Some(&inside), ws.path()).unwrap();
  assert!(!dir.starts_with(ws.path()), "{}", dir.display());
  // A workspace of `/` holds every temp dir: no file, and a reason.
  let err = private_dir(Some(&inside), Path::new("/")).unwrap_err();
  assert_eq!(err, NotKeptReason::AllTempInWorkspace);
}
