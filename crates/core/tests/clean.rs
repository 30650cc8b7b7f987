//! The streaming cleaner against the shared corpus (`__test__/corpora/clean.json`, which the JS
//! port runs too): every case whole, in every split, and pushed chunk by chunk where it says so.

mod corpus;

use corpus::{bytes_of, text_of};
use pi_codegraph_core::sanitize::{clean_text, Cleaner, CSI_PARAMS_MAX, STRING_PAYLOAD_MAX};
use serde_json::Value;

const CORPUS: &str = include_str!("../../../__test__/corpora/clean.json");

/// Cleans `chunks` one push at a time; the whole output.
fn run(chunks: &[&[u8]]) -> String {
  let mut out = String::new();
  let mut cleaner = Cleaner::new();
  for chunk in chunks {
    cleaner.push(chunk, &mut out);
  }
  cleaner.finish(&mut out);
  out
}

/// Every two-chunk split, three chunks at every pair of split points (short inputs) and byte by
/// byte must each give `expected`.
fn assert_split_invariant(name: &str, input: &[u8], expected: &str) {
  for i in 0..=input.len() {
    let (a, b) = input.split_at(i);
    assert_eq!(run(&[a, b]), expected, "{name}: split at {i}");
    if input.len() <= 64 {
      for j in i..=input.len() {
        let (b, c) = input[i..].split_at(j - i);
        assert_eq!(run(&[a, b, c]), expected, "{name}: split at {i},{j}");
      }
    }
  }
  let bytes: Vec<&[u8]> = input.chunks(1).collect();
  assert_eq!(run(&bytes), expected, "{name}: byte by byte");
}

fn corpus() -> Value {
  serde_json::from_str(CORPUS).expect("clean.json parses")
}

#[test]
fn corpus_bounds_are_the_cleaners() {
  let constants = &corpus()["constants"];
  assert_eq!(constants["STRING_PAYLOAD_MAX"], STRING_PAYLOAD_MAX);
  assert_eq!(constants["CSI_PARAMS_MAX"], CSI_PARAMS_MAX);
}

#[test]
fn corpus_cases_clean_whole_and_in_every_split() {
  let corpus = corpus();
  let cases = corpus["cases"].as_array().expect("cases");
  for case in cases.iter().filter(|c| c.get("pushes").is_none()) {
    let name = case["name"].as_str().expect("a name");
    let input = bytes_of(&case["input"], true);
    let expected = text_of(&case["expected"]);
    assert_eq!(clean_text(&input), expected, "{name}");
    assert_split_invariant(name, &input, &expected);
  }
}

#[test]
fn corpus_pushes_give_their_text_as_they_come() {
  let corpus = corpus();
  let cases = corpus["cases"].as_array().expect("cases");
  for case in cases.iter().filter(|c| c.get("pushes").is_some()) {
    let name = case["name"].as_str().expect("a name");
    let mut cleaner = Cleaner::new();
    for (i, step) in case["pushes"]
      .as_array()
      .expect("pushes")
      .iter()
      .enumerate()
    {
      let mut out = String::new();
      cleaner.push(&bytes_of(&step[0], true), &mut out);
      assert_eq!(out, text_of(&step[1]), "{name}: push {i}");
    }
    let mut out = String::new();
    cleaner.finish(&mut out);
    assert_eq!(out, text_of(&case["finish"]), "{name}: finish");
  }
}

#[test]
fn utf8_decoding_matches_from_utf8_lossy() {
  // Bytes that exercise every lead/continuation range; no controls, so nothing is removed.
  const ALPHABET: &[u8] = &[
    b'a', 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC3, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF,
    0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
  ];
  let mut seed = 0x2545_F491_4F6C_DD1Du64;
  let mut next = || {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    seed
  };
  for _ in 0..5000 {
    let len = (next() % 10) as usize;
    let input: Vec<u8> = (0..len)
      .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
      .collect();
    assert_eq!(
      clean_text(&input),
      String::from_utf8_lossy(&input),
      "{input:x?}"
    );
  }
}
