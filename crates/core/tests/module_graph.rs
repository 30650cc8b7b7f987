//! The core's modules form floors: the graph of `crate::…` (and `super::…`) references between
//! its top-level modules has no cycle. A submodule (`src/x/y.rs`, an inline `mod tests {}`)
//! counts as its top-level module `x`. On a cycle the test prints it, each arrow with the first
//! file and line that makes it, so the fix is to move what belongs lower into a lower module.
//!
//! The floors themselves (each module one above the highest module it uses) are listed in
//! `src/lib.rs`'s header; the list must match the graph, so the floors stay visible.

mod graph_source;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use graph_source::{read_graph, Graph};

fn core_graph() -> Graph {
  read_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Tarjan's strongly connected components with more than one module.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
  struct State<'a> {
    graph: &'a Graph,
    index: BTreeMap<&'a str, usize>,
    low: BTreeMap<&'a str, usize>,
    stack: Vec<&'a str>,
    on_stack: BTreeSet<&'a str>,
    found: Vec<Vec<String>>,
  }
  fn visit<'a>(s: &mut State<'a>, node: &'a str) {
    let n = s.index.len();
    s.index.insert(node, n);
    s.low.insert(node, n);
    s.stack.push(node);
    s.on_stack.insert(node);
    let graph = s.graph;
    for next in graph.edges.get(node).into_iter().flat_map(BTreeMap::keys) {
      if !s.index.contains_key(next.as_str()) {
        visit(s, next);
        let low = s.low[node].min(s.low[next.as_str()]);
        s.low.insert(node, low);
      } else if s.on_stack.contains(next.as_str()) {
        let low = s.low[node].min(s.index[next.as_str()]);
        s.low.insert(node, low);
      }
    }
    if s.low[node] == s.index[node] {
      let mut component = Vec::new();
      while let Some(top) = s.stack.pop() {
        s.on_stack.remove(top);
        component.push(top.to_string());
        if top == node {
          break;
        }
      }
      if component.len() > 1 {
        component.sort();
        s.found.push(component);
      }
    }
  }
  let mut state = State {
    graph,
    index: BTreeMap::new(),
    low: BTreeMap::new(),
    stack: Vec::new(),
    on_stack: BTreeSet::new(),
    found: Vec::new(),
  };
  for node in &graph.modules {
    if !state.index.contains_key(node.as_str()) {
      visit(&mut state, node);
    }
  }
  state.found
}

/// One closed walk through `component`, starting at its first module (a shortest way back).
fn one_cycle(graph: &Graph, component: &[String]) -> Vec<String> {
  let inside: BTreeSet<&str> = component.iter().map(String::as_str).collect();
  let start = component[0].as_str();
  let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
  let mut queue = std::collections::VecDeque::from([start]);
  while let Some(node) = queue.pop_front() {
    for next in graph.edges.get(node).into_iter().flat_map(BTreeMap::keys) {
      let next = next.as_str();
      if !inside.contains(next) {
        continue;
      }
      if next == start {
        let mut back = vec![start.to_string()];
        let mut at = node;
        while at != start {
          back.push(at.to_string());
          at = came_from[at];
        }
        back.push(start.to_string());
        back.reverse();
        return back;
      }
      if !came_from.contains_key(next) {
        came_from.insert(next, node);
        queue.push_back(next);
      }
    }
  }
  unreachable!("a strongly connected component has a cycle through each module")
}

/// Floor 0 uses no module of the crate; every other module sits one floor above the highest it uses.
fn floors(graph: &Graph) -> BTreeMap<usize, Vec<String>> {
  let mut floor: BTreeMap<&str, usize> = BTreeMap::new();
  while floor.len() < graph.modules.len() {
    let before = floor.len();
    for module in &graph.modules {
      let uses: Vec<&str> = graph
        .edges
        .get(module)
        .into_iter()
        .flat_map(BTreeMap::keys)
        .map(String::as_str)
        .collect();
      if !floor.contains_key(module.as_str()) && uses.iter().all(|u| floor.contains_key(u)) {
        let level = uses.iter().map(|u| floor[u] + 1).max().unwrap_or(0);
        floor.insert(module, level);
      }
    }
    assert!(floor.len() > before, "floors exist only without a cycle");
  }
  let mut by_floor: BTreeMap<usize, Vec<String>> = BTreeMap::new();
  for (module, level) in floor {
    by_floor.entry(level).or_default().push(module.to_string());
  }
  by_floor
}

#[test]
fn the_core_modules_have_no_cycle() {
  let graph = core_graph();
  assert!(
    graph.modules.len() > 10,
    "read the core's modules: {:?}",
    graph.modules
  );
  let found = cycles(&graph);
  let mut report = String::new();
  for component in &found {
    let walk = one_cycle(&graph, component);
    let _ = writeln!(
      report,
      "\ncycle among {} modules: {}\n  {}",
      component.len(),
      component.join(", "),
      walk.join(" -> ")
    );
    for pair in walk.windows(2) {
      let site = &graph.edges[&pair[0]][&pair[1]];
      let _ = writeln!(report, "    {} -> {}: {site}", pair[0], pair[1]);
    }
  }
  assert!(
    found.is_empty(),
    "the core's module graph has a cycle; move what belongs lower into a lower module:{report}"
  );
}

/// `src/lib.rs`'s `//! - floor N: a, b (what they are)` lines.
fn listed_floors() -> BTreeMap<usize, Vec<String>> {
  let lib =
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
  lib
    .lines()
    .filter_map(|l| l.strip_prefix("//! - floor "))
    .map(|l| {
      let (level, names) = l.split_once(": ").expect("`//! - floor N: modules`");
      let names = names.split(" (").next().unwrap_or_default();
      let mut modules: Vec<String> = names.split(", ").map(str::to_string).collect();
      modules.sort();
      (level.parse().expect("a floor number"), modules)
    })
    .collect()
}

#[test]
fn lib_rs_lists_each_module_on_its_floor() {
  let graph = core_graph();
  assert!(
    cycles(&graph).is_empty(),
    "no floors while there is a cycle"
  );
  let actual = floors(&graph);
  let show = |f: &BTreeMap<usize, Vec<String>>| {
    f.iter()
      .map(|(level, m)| format!("//! - floor {level}: {}", m.join(", ")))
      .collect::<Vec<_>>()
      .join("\n")
  };
  assert_eq!(
    listed_floors(),
    actual,
    "src/lib.rs lists other floors than the graph has; list them as:\n{}",
    show(&actual)
  );
}

/// A `crate::X` path that names no module would hide an arrow: lib.rs only declares modules (no
/// `use`, no item of its own), so every `crate::` path names the module it goes through.
#[test]
fn lib_rs_declares_modules_only() {
  let lib =
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
  let others: Vec<&str> = lib
    .lines()
    .map(str::trim)
    .filter(|l| !(l.is_empty() || l.starts_with("//") || l.starts_with("#[")))
    .filter(|l| {
      let decl = l.strip_prefix("pub ").unwrap_or(l);
      !(decl.starts_with("mod ") && decl.ends_with(';'))
    })
    .collect();
  assert!(
    others.is_empty(),
    "src/lib.rs holds more than module declarations: {others:?}"
  );
}

#[test]
fn the_reader_sees_grouped_super_and_inline_module_paths() {
  let dir = tempfile::tempdir().unwrap();
  let src = dir.path();
  std::fs::create_dir_all(src.join("a")).unwrap();
  std::fs::write(
    src.join("lib.rs"),
    "pub mod a; pub mod b; pub mod c; pub mod d; pub mod e;",
  )
  .unwrap();
  // `crate::{b, c::X}` and, from a submodule, `super::super::d` (the crate root's d).
  std::fs::write(src.join("a.rs"), "mod inner;\nuse crate::{b, c::X};\n").unwrap();
  std::fs::write(src.join("a/inner.rs"), "fn f() { super::super::d::g(); }\n").unwrap();
  // Inside an inline `mod tests {}`, `super::` is b itself: no arrow. `$crate::`, comments and
  // strings are no reference.
  std::fs::write(
    src.join("b.rs"),
    "mod tests { use super::*; }\n// crate::e\nconst S: &str = \"crate::e\";\nmacro_rules! m { () => { $crate::e::f() } }\n",
  )
  .unwrap();
  std::fs::write(
    src.join("c.rs"),
    "pub struct X; fn f() -> char { '{' }\nfn g() { crate::e::h(); }\n",
  )
  .unwrap();
  std::fs::write(src.join("d.rs"), "").unwrap();
  std::fs::write(
    src.join("e.rs"),
    "fn x<'a>(s: &'a str) { crate::a::y(s) }\n",
  )
  .unwrap();
  let graph = read_graph(src);
  let arrows: Vec<String> = graph
    .edges
    .iter()
    .flat_map(|(from, to)| to.keys().map(move |to| format!("{from}->{to}")))
    .collect();
  assert_eq!(arrows, ["a->b", "a->c", "a->d", "c->e", "e->a"]);
  let found = cycles(&graph);
  assert_eq!(found, [["a", "c", "e"]]);
  assert_eq!(one_cycle(&graph, &found[0]), ["a", "c", "e", "a"]);
}
