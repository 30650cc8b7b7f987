//! OS strings as JSON strings, for what one build of the core hands another (`off_thread`): the
//! WebAssembly build's come from JS strings (UTF-8), and go back to the same build. Natively
//! nothing is handed over.

use std::ffi::OsString;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

fn text(s: &OsString) -> String {
  s.to_string_lossy().into_owned()
}

/// `Vec<OsString>`, for a serde `with`.
pub mod list {
  use super::{text, Deserialize, Deserializer, OsString, Serialize, Serializer};

  pub fn serialize<S: Serializer>(list: &[OsString], s: S) -> Result<S::Ok, S::Error> {
    list.iter().map(text).collect::<Vec<_>>().serialize(s)
  }

  pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OsString>, D::Error> {
    Ok(
      Vec::<String>::deserialize(d)?
        .into_iter()
        .map(OsString::from)
        .collect(),
    )
  }
}

/// `Vec<(OsString, OsString)>` (names and values), for a serde `with`.
pub mod pairs {
  use super::{text, Deserialize, Deserializer, OsString, Serialize, Serializer};

  pub fn serialize<S: Serializer>(pairs: &[(OsString, OsString)], s: S) -> Result<S::Ok, S::Error> {
    let texts: Vec<(String, String)> = pairs.iter().map(|(k, v)| (text(k), text(v))).collect();
    texts.serialize(s)
  }

  pub fn deserialize<'de, D: Deserializer<'de>>(
    d: D,
  ) -> Result<Vec<(OsString, OsString)>, D::Error> {
    let texts: Vec<(String, String)> = Vec::deserialize(d)?;
    Ok(
      texts
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect(),
    )
  }
}
