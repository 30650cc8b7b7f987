//! Clean text for the model: CLI bytes decoded, terminal escapes removed ([`clean`]), secrets
//! masked ([`redact`]).

mod clean;
mod redact;

pub use clean::{clean_text, Cleaner, CSI_PARAMS_MAX, STRING_PAYLOAD_MAX};
pub use redact::redact;
