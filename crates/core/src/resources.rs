//! Running out of a system resource (file descriptors, processes or threads, memory) is its own
//! failure: the workspace, the index and the executable may all be fine, and the same call works
//! again once the resource is back. Every check and spawn that can meet such an error asks
//! [`exhausted`] first, so it is never reported as a missing workspace or a broken executable.

use crate::errors::{os_text, CodegraphError, Resource, Step};

/// CODEGRAPH_RESOURCES for `e` met during `step`, when `e` is a resource running out.
pub fn exhausted(step: Step, e: &std::io::Error) -> Option<CodegraphError> {
  Resource::of(e).map(|resource| CodegraphError::Resources {
    resource,
    step,
    os: os_text(e),
  })
}

/// A panic's message, when it says a resource ran out (tokio panics when it cannot start a
/// thread or create its signal pipe): the OS error text it quotes.
pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Option<CodegraphError> {
  let text = payload
    .downcast_ref::<String>()
    .map(String::as_str)
    .or_else(|| payload.downcast_ref::<&str>().copied())?;
  let resource = [
    ("Too many open files in system", Resource::SystemFiles),
    ("Too many open files", Resource::ProcessFiles),
    ("os error 24", Resource::ProcessFiles),
    ("os error 23", Resource::SystemFiles),
    ("Resource temporarily unavailable", Resource::Processes),
    ("os error 11", Resource::Processes),
    ("Cannot allocate memory", Resource::Memory),
    ("os error 12", Resource::Memory),
    ("can't spawn worker thread", Resource::Processes),
  ]
  .into_iter()
  .find_map(|(needle, r)| text.contains(needle).then_some(r))?;
  let first_line = text.lines().next().unwrap_or_default();
  Some(CodegraphError::Resources {
    resource,
    step: Step::AddonThread,
    os: first_line.chars().take(200).collect(),
  })
}

#[cfg(test)]
mod tests;
