//! pi-codegraph's core: everything that runs a CodeGraph command (`codegraph explore --
//! <request>` and any other [`command::Command`]) safely, in plain Rust with no napi types. The
//! addon at the workspace root only converts between JS values and what this crate takes and
//! returns.
//!
//! The entry points are [`command_run::run_command`], [`command_run::diagnose`],
//! [`source_scan::scan`], [`source_changes::changed_since`] and [`source_outline::outline_source`].
//! [`child::run`] is public for the integration tests (`tests/`), which drive one CLI child
//! directly with fake CLIs.
//!
//! # Two builds
//!
//! The native addon builds every module. The WebAssembly build (`wasm32-wasip1-threads`, the Node
//! runner's core where no addon loads) builds those WASI can carry: the modules marked
//! `cfg(not(target_family = "wasm"))` below start, wait for or signal processes, or read host facts
//! WASI has no call for (owners, modes, the process table); docs/architecture.md says which and why.
//!
//! # Floors
//!
//! A module uses only modules on floors below its own (a submodule counts as its parent).
//! `tests/module_graph.rs` reads every `crate::` path and fails on a cycle, or when a module is
//! not on the floor listed here:
//!
//! - floor 0: caps, clock, env_snapshot, errors, host, host_watch, os_strings, sanitize, source_lex, source_pattern
//!   (numbers, timers, OS strings as text, facts, the caller's environment, the WebAssembly
//!   host's answers, a source file's tokens and definitions)
//! - floor 1: access, command, exit_verdict, files, git_command, index_dir, pid, resources, source_context
//!   (OS primitives; a command and a git run as described)
//! - floor 2: exec_format, full_output, index_copy, lock_holders, manifest, preflight, source_outline, source_walk
//!   (whether the kernel runs a file itself)
//! - floor 3: change_watch, discovery, index_writer, limits, source_scan (the bounded source
//!   search; the watch of a large tree while auto sync is on)
//! - floor 4: child, environment, source_changes
//! - floor 5: git_found, ready, warm (where git is; the checks before a run, in one pass; the
//!   long-lived CodeGraph that answers when auto sync is on)
//! - floor 6: diagnosis (a survey made a diagnosis)
//! - floor 7: off_thread, version (the checks as data, answered off the async workers; the CLI's
//!   version)
//! - floor 8: command_run, git_run (one command, start to finish: checks, run, verdict; and
//!   diagnose; git as a child, CodeGraph's rules)

pub mod access;
pub mod caps;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub mod change_watch;
pub mod child;
pub mod clock;
pub mod command;
pub mod command_run;
pub mod diagnosis;
pub mod discovery;
pub mod env_snapshot;
pub mod environment;
pub mod errors;
pub mod exec_format;
pub mod exit_verdict;
pub mod files;
pub mod full_output;
pub mod git_command;
pub mod git_found;
pub mod git_run;
pub mod host;
#[cfg(all(unix, not(target_family = "wasm")))]
mod host_watch;
pub mod index_copy;
pub mod index_dir;
pub mod index_writer;
pub mod limits;
mod lock_holders;
pub mod manifest;
pub mod off_thread;
pub mod os_strings;
pub mod pid;
pub mod preflight;
pub mod ready;
pub mod resources;
pub mod sanitize;
pub mod source_changes;
pub mod source_context;
pub mod source_lex;
pub mod source_outline;
pub mod source_pattern;
pub mod source_scan;
pub mod source_walk;
pub mod version;
#[cfg(not(target_family = "wasm"))]
pub mod warm;
