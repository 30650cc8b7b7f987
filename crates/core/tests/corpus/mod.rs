//! The shared corpora's value format (`__test__/corpora/*.json`, read by the JS tests too, with
//! `__test__/helpers/corpus.mjs`): used by `tests/clean.rs` and the core's exit classifier test.
#![allow(dead_code)] // each user takes its own part

use serde_json::Value;

/// A corpus value as bytes: a string, or a list of strings and `[string, times]` repeats; in a
/// string, `\xHH` is one raw byte (when `raw`), everything else its UTF-8.
pub fn bytes_of(spec: &Value, raw: bool) -> Vec<u8> {
  let parts = match spec {
    Value::Array(parts) => parts.clone(),
    one => vec![one.clone()],
  };
  let mut out = Vec::new();
  for part in &parts {
    let (text, times) = match part {
      Value::String(s) => (s.as_str(), 1),
      Value::Array(pair) => (
        pair[0].as_str().expect("a repeat's text"),
        pair[1].as_u64().expect("a repeat's count") as usize,
      ),
      other => panic!("not a corpus part: {other}"),
    };
    let one = if raw {
      unescape(text)
    } else {
      text.as_bytes().to_vec()
    };
    out.extend(one.repeat(times));
  }
  out
}

fn unescape(text: &str) -> Vec<u8> {
  let mut out = Vec::new();
  let mut rest = text;
  while let Some(at) = rest.find("\\x") {
    let hex = rest
      .get(at + 2..at + 4)
      .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    let (before, after) = rest.split_at(at);
    out.extend_from_slice(before.as_bytes());
    if let Some(hex) = hex {
      out.push(u8::from_str_radix(hex, 16).unwrap());
      rest = &after[4..];
    } else {
      out.push(b'\\');
      rest = &after[1..];
    }
  }
  out.extend_from_slice(rest.as_bytes());
  out
}

pub fn text_of(spec: &Value) -> String {
  String::from_utf8(bytes_of(spec, false)).unwrap()
}
