//! pi-codegraph's core: everything that runs a CodeGraph command (`codegraph explore --
//! <request>` and any other [`command::Command`]) safely, in plain Rust with no napi types. The
//! addon at the workspace root only converts between JS values and what this crate takes and
//! returns.
//!
//! The entry points are [`explore::run_command`] and [`explore::diagnose`]. [`runner::run`] is public
//! for the integration tests (`tests/`), which drive the process runner directly with fake CLIs.

pub mod access;
pub mod caps;
pub mod command;
pub mod discovery;
pub mod environment;
pub mod errors;
pub mod explore;
pub mod files;
pub mod full_output;
#[cfg(unix)]
mod host_watch;
pub mod index_dir;
pub mod index_writer;
pub mod limits;
pub mod manifest;
mod pid;
pub mod preflight;
pub mod resources;
pub mod runner;
pub mod sanitize;
pub mod version;
