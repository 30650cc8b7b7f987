use super::glob_matches;

#[test]
fn globs_match_whole_names() {
  assert!(glob_matches("target", "target"));
  assert!(!glob_matches("target", "targets"));
  assert!(glob_matches("*.egg-info", "pkg.egg-info"));
  assert!(!glob_matches("*.egg-info", "pkg.egg-info2"));
  assert!(glob_matches("cmake-build-*", "cmake-build-debug"));
  assert!(glob_matches("bazel-*", "bazel-"));
  assert!(!glob_matches("bazel-*", "bazel"));
  assert!(glob_matches("a*b*c", "a-b-c"));
  assert!(!glob_matches("a*b*c", "a-c-b"));
}
