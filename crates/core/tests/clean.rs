//! The streaming cleaner: escapes, controls, UTF-8 decoding, and the same result for any split.

use pi_codegraph_core::sanitize::{clean_text, Cleaner, CSI_PARAMS_MAX, STRING_PAYLOAD_MAX};

/// Cleans `input` in every two-chunk split, in three chunks at every pair of split points
/// (short inputs) and byte by byte; each must give what `clean_text` gives.
fn assert_split_invariant(input: &[u8]) {
  let whole = clean_text(input);
  let run = |chunks: &[&[u8]]| {
    let mut out = String::new();
    let mut cleaner = Cleaner::new();
    for chunk in chunks {
      cleaner.push(chunk, &mut out);
    }
    cleaner.finish(&mut out);
    out
  };
  for i in 0..=input.len() {
    let (a, b) = input.split_at(i);
    assert_eq!(run(&[a, b]), whole, "split at {i} of {input:?}");
    if input.len() <= 64 {
      for j in i..=input.len() {
        let (b, c) = input[i..].split_at(j - i);
        assert_eq!(run(&[a, b, c]), whole, "split at {i},{j} of {input:?}");
      }
    }
  }
  let bytes: Vec<&[u8]> = input.chunks(1).collect();
  assert_eq!(run(&bytes), whole, "byte by byte: {input:?}");
}

#[test]
fn strips_escapes_keeps_structure() {
  let raw = b"\x1b[1;31merror\x1b[0m\tdetail\r\n\x1b]0;title\x07next\x00line\n";
  assert_eq!(clean_text(raw), "error\tdetail\nnextline\n");
}

#[test]
fn invalid_utf8_becomes_replacement() {
  assert_eq!(clean_text(b"a\xffb\n"), "a\u{FFFD}b\n");
  assert_eq!(
    clean_text(b"before\xff\xfe middle"),
    "before\u{FFFD}\u{FFFD} middle"
  );
  assert_eq!(clean_text(b"\xc3\x28"), "\u{FFFD}(");
  // Maximal invalid subsequences: a truncated 3-byte sequence is one U+FFFD.
  assert_eq!(clean_text(b"\xe2\x82x"), "\u{FFFD}x");
  assert_eq!(clean_text("é€😀".as_bytes()), "é€😀");
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

#[test]
fn unterminated_osc_ends_at_newline() {
  // The newline that ends the sequence is kept, so the title line becomes an empty line.
  assert_eq!(
    clean_text(b"line1\n\x1b]0;title\nline2\n"),
    "line1\n\nline2\n"
  );
  assert_eq!(clean_text(b"a\x1b]0;title\r\nb"), "a\nb");
  assert_eq!(clean_text(b"a\x1b]0;title"), "a");
}

#[test]
fn every_string_sequence_ends_at_newline() {
  for intro in [&b"\x1b]"[..], b"\x1bP", b"\x1b_", b"\x1b^", b"\x1bX"] {
    let input = [&b"one"[..], intro, b"payload\ntwo\n"].concat();
    assert_eq!(clean_text(&input), "one\ntwo\n", "{input:?}");
  }
  for intro in ['\u{9D}', '\u{90}', '\u{9F}', '\u{9E}', '\u{98}'] {
    let input = format!("one{intro}payload\ntwo\n");
    assert_eq!(clean_text(input.as_bytes()), "one\ntwo\n", "{input:?}");
  }
}

#[test]
fn string_sequences_end_at_their_terminators() {
  assert_eq!(clean_text(b"a\x1b]52;c;ZZZZ\x07b"), "ab");
  assert_eq!(
    clean_text(b"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b"),
    "alinkb"
  );
  assert_eq!(clean_text("a\x1bPq#0;1\u{9C}b".as_bytes()), "ab");
  assert_eq!(clean_text("a\u{9D}0;t\u{9C}b".as_bytes()), "ab");
  // CAN cancels; an ESC that is not ST starts a new escape.
  assert_eq!(clean_text(b"a\x1b]0;t\x18b"), "ab");
  assert_eq!(clean_text(b"a\x1b]0;t\x1b[1mb"), "ab");
  assert_eq!(clean_text(b"a\x1b]0;t\x1b5b"), "a5b");
}

#[test]
fn string_sequence_payload_is_bounded() {
  // The first 4 KB of payload are dropped; the rest of the line shows as text again.
  let payload = "x".repeat(10 * 1024);
  let input = format!("\x1b]{payload}\nafter");
  let expected = format!("{}\nafter", "x".repeat(10 * 1024 - STRING_PAYLOAD_MAX));
  assert_eq!(clean_text(input.as_bytes()), expected);
  let input = format!("\x1b]{}\x07after", "x".repeat(STRING_PAYLOAD_MAX));
  assert_eq!(clean_text(input.as_bytes()), "after");
}

#[test]
fn lone_escape_keeps_the_next_character() {
  assert_eq!(clean_text(b"price \x1b5 dollars"), "price 5 dollars");
  assert_eq!(clean_text(b"a\x1b\nb"), "a\nb");
  assert_eq!(clean_text(b"a\x1b\x1b[0mb"), "ab");
  assert_eq!(clean_text("a\x1bé".as_bytes()), "aé");
  assert_eq!(clean_text(b"end\x1b"), "end");
}

#[test]
fn known_escapes_are_dropped_whole() {
  assert_eq!(
    clean_text(b"\x1b7a\x1b8b\x1b=c\x1b>d\x1bMe\x1b\\f"),
    "abcdef"
  );
  assert_eq!(clean_text(b"\x1b(Ba\x1b)0b\x1b#8c"), "abc");
  // A charset select cut short strips only itself.
  assert_eq!(clean_text(b"a\x1b(\nb"), "a\nb");
}

#[test]
fn csi_is_removed_and_unterminated_csi_strips_only_itself() {
  assert_eq!(clean_text(b"a\x1b[1;31mb\x1b[2Kc\x1b[?25hd"), "abcd");
  assert_eq!(clean_text(b"a\x1b[12\nb"), "a\nb");
  assert_eq!(clean_text("a\x1b[12é".as_bytes()), "aé");
  assert_eq!(clean_text(b"a\x1b["), "a");
  // Over-long parameters: the CSI ends at the bound and the rest shows.
  let input = format!("a\x1b[{}m", "1".repeat(CSI_PARAMS_MAX + 3));
  assert_eq!(clean_text(input.as_bytes()), "a111m");
}

#[test]
fn c1_controls() {
  assert_eq!(clean_text("a\u{9B}1;31mb".as_bytes()), "ab");
  assert_eq!(clean_text("a\u{85}b\u{9C}c\u{80}d".as_bytes()), "abcd");
  // Raw 8-bit C1 bytes are not UTF-8: they are shown as U+FFFD, not interpreted.
  assert_eq!(clean_text(b"a\x9b31mb"), "a\u{FFFD}31mb");
}

#[test]
fn carriage_returns_become_newlines() {
  assert_eq!(clean_text(b"a\rb"), "a\nb");
  assert_eq!(clean_text(b"a\r\nb"), "a\nb");
  assert_eq!(clean_text(b"a\r\r\nb"), "a\n\nb");
  assert_eq!(clean_text(b"a\r"), "a\n");
  assert_eq!(clean_text(b"a\n\rb"), "a\n\nb");
  assert_eq!(clean_text(b"50%\r100%\n"), "50%\n100%\n");
}

#[test]
fn other_controls_are_dropped() {
  assert_eq!(clean_text(b"a\x00b\x07c\x08d\x7fe\tf\x0cg"), "abcde\tfg");
}

#[test]
fn streaming_matches_whole_input_for_any_split() {
  let cases: &[&[u8]] = &[
    b"\x1b[1;31merror\x1b[0m\tdetail\r\n\x1b]0;title\x07next\x00line\n",
    b"line1\n\x1b]0;title\nline2\n",
    b"a\x1b]52;c;ZZZZ\x1b\\b\r\r\nc\r",
    b"price \x1b5 dollars\x1b",
    b"a\x1b[12\nb\x1b(\nc\x1b(Bd",
    b"before\xff\xfe middle \xc3\x28 \xe2\x82 \xf0\x9f\x98\x80 \xe2\x82",
    "\u{9B}31m\u{9D}t\u{9C}é€😀\r".as_bytes(),
    b"x\x1b]0;t\x1b[1my\x1bP\xe2\x82\xac\n\xf4\x90",
  ];
  for input in cases {
    assert_split_invariant(input);
  }
  let long = [
    &b"\x1b]"[..],
    &[b'x'; 5000],
    b"\r\nafter\x1b[",
    &[b'1'; 300],
    b"m",
  ]
  .concat();
  assert_split_invariant(&long);
}

#[test]
fn finish_flushes_pending_state() {
  let mut out = String::new();
  let mut cleaner = Cleaner::new();
  cleaner.push(b"a\r", &mut out);
  assert_eq!(out, "a\n");
  cleaner.push(b"\n\xe2\x82", &mut out);
  assert_eq!(out, "a\n");
  cleaner.finish(&mut out);
  assert_eq!(out, "a\n\u{FFFD}");

  let mut out = String::new();
  let mut cleaner = Cleaner::new();
  cleaner.push(b"b\x1b[1;3", &mut out);
  cleaner.finish(&mut out);
  assert_eq!(out, "b");
}
