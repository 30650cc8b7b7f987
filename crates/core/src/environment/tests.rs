//! Unit tests of `environment` (they reach its private items).

use super::*;

#[test]
fn quiet_defaults_are_added_when_unset() {
  let env = EnvSnapshot::from_pairs(&[("PATH", "/bin")]).for_child();
  let has = |k: &str, v: &str| env.iter().any(|(a, b)| a == k && b == v);
  assert!(has("CODEGRAPH_TELEMETRY", "0"));
  assert!(has("CODEGRAPH_NO_DOWNLOAD", "1"));
  assert!(has("PATH", "/bin"));
}

#[test]
fn an_explicit_user_setting_wins() {
  let env = EnvSnapshot::from_pairs(&[("CODEGRAPH_TELEMETRY", "1"), ("NO_COLOR", "")]).for_child();
  let values = |k: &str| {
    env
      .iter()
      .filter(|(a, _)| a == k)
      .map(|(_, b)| b.clone())
      .collect::<Vec<_>>()
  };
  assert_eq!(values("CODEGRAPH_TELEMETRY"), vec![OsString::from("1")]);
  assert_eq!(values("NO_COLOR"), vec![OsString::from("")]);
}

#[test]
fn do_not_track_counts_as_a_telemetry_choice() {
  let env = EnvSnapshot::from_pairs(&[("DO_NOT_TRACK", "1")]).for_child();
  assert!(!env.iter().any(|(a, _)| a == "CODEGRAPH_TELEMETRY"));
}
