//! Clean text for the model: CLI bytes decoded and terminal escapes removed ([`clean`]). Paths
//! are made printable and masking secrets is done by the JS words module (lib/words/paths.js,
//! redact.js): the core hands over clean, bounded, unredacted text and raw paths.

mod clean;

pub use clean::{clean_text, Cleaner, CSI_PARAMS_MAX, STRING_PAYLOAD_MAX};
