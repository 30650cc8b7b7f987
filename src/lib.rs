//! The napi surface of pi-codegraph: `runCommand()`, `runGit()`, `diagnose()`,
//! `releaseFullOutputs()`, `setPackageCli()` and the contract's limits (src/runner_calls.rs),
//! `scanSource()`, `changedSource()` (src/source_scan.rs) and `outlineSource()`
//! (src/source_outline.rs), `copyIndex()` (src/index_copy.rs). Built for WebAssembly too: the same
//! calls (the long-lived server's aside) on the core's own threads (src/host_threads.rs) with its
//! host starting each child (src/host_child.rs), the source calls synchronous for the Node
//! runner's worker (src/wasm.rs), and a call's checks answered there with the host's facts
//! (src/host_answers.rs). Only conversion lives in this crate: `args` reads the JS
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
#[cfg(not(target_family = "wasm"))]
mod change_watch;
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
mod runner_calls;
mod runtime;
mod source_outline;
mod source_scan;
#[cfg(not(target_family = "wasm"))]
mod threaded;
mod types;
#[cfg(target_family = "wasm")]
mod wasm;

#[cfg(not(target_family = "wasm"))]
pub use change_watch::*;
pub use git_call::*;
#[cfg(target_family = "wasm")]
pub use host_child::*;
#[cfg(target_family = "wasm")]
pub use host_threads::*;
pub use index_copy::*;
pub use runner_calls::*;
pub use source_outline::*;
pub use source_scan::*;
pub use types::*;
