//! The environment as the caller's process had it, captured once per call on the JS thread
//! (`env_capture` in the addon). Everything downstream (discovery, preflight, the child's
//! environment) reads this snapshot only, never `environ` directly. Plain data and its lookups.

use std::ffi::{OsStr, OsString};

#[derive(Debug, Clone, Default)]
pub struct EnvSnapshot {
  vars: Vec<(OsString, OsString)>,
}

impl EnvSnapshot {
  /// The C `environ`, for when JS cannot be asked.
  pub fn capture() -> Self {
    Self::from_vars(std::env::vars_os().collect())
  }

  pub fn from_vars(vars: Vec<(OsString, OsString)>) -> Self {
    Self { vars }
  }

  /// A snapshot of just these variables (tests, and callers that build the child's environment).
  pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
    Self {
      vars: pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect(),
    }
  }

  pub fn get(&self, key: &str) -> Option<&OsStr> {
    self
      .vars
      .iter()
      .rev()
      .find(|(k, _)| key_eq(k, key))
      .map(|(_, v)| v.as_os_str())
  }

  /// A non-empty value, as the user would mean it.
  pub fn get_set(&self, key: &str) -> Option<&OsStr> {
    self.get(key).filter(|v| !v.is_empty())
  }

  /// Every variable, in the order it was captured (a later one wins, as in `get`).
  pub fn vars(&self) -> &[(OsString, OsString)] {
    &self.vars
  }
}

/// Windows environment names are case-insensitive.
pub fn key_eq(k: &OsStr, key: &str) -> bool {
  if cfg!(windows) {
    k.to_string_lossy().eq_ignore_ascii_case(key)
  } else {
    k == key
  }
}
