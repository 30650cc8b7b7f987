//! Unit tests of `resources`: which OS errors and panics mean a resource ran out.

use super::*;

#[cfg(unix)]
#[test]
fn os_errors_that_mean_a_resource_ran_out() {
  let of = |n| Resource::of(&std::io::Error::from_raw_os_error(n));
  assert_eq!(of(libc::EMFILE), Some(Resource::ProcessFiles));
  assert_eq!(of(libc::ENFILE), Some(Resource::SystemFiles));
  assert_eq!(of(libc::EAGAIN), Some(Resource::Processes));
  assert_eq!(of(libc::ENOMEM), Some(Resource::Memory));
  assert_eq!(of(libc::EACCES), None);
  assert_eq!(of(libc::ENOENT), None);
  let e = exhausted(
    Step::ListWorkspace,
    &std::io::Error::from_raw_os_error(libc::EMFILE),
  )
  .unwrap();
  assert_eq!(e.code(), crate::errors::ErrorCode::Resources);
  // The facts the words module names it by: the errno, the step and the OS's text.
  let f = e.facts();
  assert_eq!(f["resource"], "EMFILE");
  assert_eq!(f["step"]["is"], "listWorkspace");
  assert!(f["os"].as_str().unwrap().contains("os error"), "{f}");
}

#[test]
fn panics_that_quote_a_resource_error() {
  let tokio_thread: Box<dyn std::any::Any + Send> = Box::new(
    "OS can't spawn worker thread: Resource temporarily unavailable (os error 11)".to_owned(),
  );
  let e = from_panic(tokio_thread.as_ref()).expect("a resource");
  assert!(matches!(
    e,
    crate::errors::CodegraphError::Resources {
      resource: Resource::Processes,
      ..
    }
  ));
  let signal_pipe: Box<dyn std::any::Any + Send> =
    Box::new("failed to create UnixStream: Os { code: 24, kind: Uncategorized, message: \"Too many open files\" }");
  let e = from_panic(signal_pipe.as_ref()).expect("a resource");
  assert!(matches!(
    e,
    crate::errors::CodegraphError::Resources {
      resource: Resource::ProcessFiles,
      ..
    }
  ));
  let bug: Box<dyn std::any::Any + Send> = Box::new("index out of bounds");
  assert!(from_panic(bug.as_ref()).is_none());
}
