//! The napi surface of pi-codegraph: `runCommand()`, `runGit()`, `diagnose()`,
//! `releaseFullOutputs()`, `setPackageCli()` and the contract's limits (src/runner_calls.rs),
//! `scanSource()`, `changedSource()` (src/source_scan.rs) and `outlineSource()`
//! (src/source_outline.rs), `copyIndex()` (src/index_copy.rs). Built for WebAssembly: the source
//! calls (src/wasm.rs), a run's output collectors (src/output.rs), a call's arguments and its
//! exit's verdict (src/call.rs), and the checks before and after a run, a diagnosis's and git's
//! (src/checks.rs, src/survey.rs, with the host's answers: src/host_answers.rs). Only conversion lives in this crate: `args` reads the JS
//! arguments, `abort` links an `AbortSignal`, `env_capture` reads the environment as JS sees it,
//! `convert` turns the core's results into JS values, and `types` declares their shapes.
//! Everything that does the work is in `pi-codegraph-core` (crates/core).

// napi-rs hands every call and callback a `&Env` and its APIs borrow it; passing it by value
// instead would only differ from every napi-rs example.
#![allow(clippy::trivially_copy_pass_by_ref)]

// What runs processes exists in the native build only; the WebAssembly build (wasm32-wasip1-threads,
// where WASI can neither start nor kill a process) exports the source calls synchronously
// (src/wasm.rs) for the JS runner's worker.
mod abort;
mod args;
#[cfg(target_family = "wasm")]
mod call;
#[cfg(not(target_family = "wasm"))]
mod change_watch;
#[cfg(target_family = "wasm")]
mod checks;
mod convert;
mod env_capture;
mod git_call;
#[cfg(target_family = "wasm")]
mod host_answers;
#[cfg(target_family = "wasm")]
mod host_child;
#[cfg(target_family = "wasm")]
mod host_threads;
mod index_copy;
#[cfg(target_family = "wasm")]
mod output;
#[cfg(not(target_family = "wasm"))]
mod runner_calls;
mod runtime;
mod source_outline;
mod source_scan;
#[cfg(target_family = "wasm")]
mod survey;
#[cfg(not(target_family = "wasm"))]
mod threaded;
mod types;
#[cfg(target_family = "wasm")]
mod wasm;

#[cfg(target_family = "wasm")]
pub use call::*;
#[cfg(not(target_family = "wasm"))]
pub use change_watch::*;
#[cfg(target_family = "wasm")]
pub use checks::*;
pub use git_call::*;
#[cfg(target_family = "wasm")]
pub use host_child::*;
#[cfg(target_family = "wasm")]
pub use host_threads::*;
pub use index_copy::*;
#[cfg(target_family = "wasm")]
pub use output::*;
#[cfg(not(target_family = "wasm"))]
pub use runner_calls::*;
pub use source_outline::*;
pub use source_scan::*;
#[cfg(target_family = "wasm")]
pub use survey::*;
pub use types::*;
