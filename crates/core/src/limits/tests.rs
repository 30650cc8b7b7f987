//! Unit tests of `limits` (they reach its private items).

use super::*;
use crate::caps::*;
use crate::full_output::SpillTarget;

fn collect(chunks: &[&[u8]]) -> Bounded {
  let mut c = StdoutCollector::new(None);
  for ch in chunks {
    c.push(ch);
  }
  c.finish(true)
}

#[test]
fn small_output_is_kept_whole() {
  let b = collect(&[b"hello\n", b"world\n"]);
  assert_eq!(b.text, "hello\nworld\n");
  assert!(!b.truncated);
  assert_eq!((b.total_lines, b.kept_lines, b.total_bytes), (2, 2, 12));
}

// The marker is worded and fitted to the caps by the glue (lib/api/answer.js, lib/words/marker.js;
// tested through explore() in __test__/contracts/explore.test.mjs): here the stored text stays within the
// caps (+ a few bytes around a cut character) and every truncated answer names its file.

#[test]
fn lines_cap_stops_storing() {
  let line = b"x\n".repeat(MAX_LINES + 500);
  let b = collect(&[&line]);
  assert!(b.truncated);
  assert!(b.kept_lines <= MAX_LINES as u64 + 1, "{}", b.kept_lines);
  assert_eq!(b.total_lines, (MAX_LINES + 500) as u64);
}

#[test]
fn a_truncated_answer_is_stored_within_the_caps_and_names_its_file() {
  let dir = tempfile::tempdir().unwrap();
  let ws = tempfile::tempdir().unwrap();
  let long_line = format!("{}\n", "a".repeat(99));
  let cases: Vec<Vec<u8>> = vec![
    long_line.repeat(1000).into_bytes(),
    b"x\n".repeat(MAX_LINES + 1),
    "é".repeat(MAX_BYTES).into_bytes(),
    vec![b'z'; MAX_BYTES + 1],
    vec![b'z'; MAX_BYTES + 3],
  ];
  for raw in cases {
    let target = SpillTarget::Find {
      tmpdir_var: Some(dir.path().to_path_buf()),
      workspace: ws.path().to_path_buf(),
    };
    let mut c = StdoutCollector::new(Some(target));
    c.push(&raw);
    let b = c.finish(true);
    assert!(b.truncated);
    assert!(b.text.len() <= MAX_BYTES + 8, "{} bytes", b.text.len());
    assert_eq!(b.kept_bytes, b.text.len() as u64);
    match &b.full_output {
      Some(FullOutput::Kept { bytes, .. }) => assert_eq!(*bytes, raw.len() as u64),
      other => panic!("no file: {other:?}"),
    }
  }
}

#[test]
fn exactly_the_caps_is_not_truncated() {
  let b = collect(&[&vec![b'z'; MAX_BYTES]]);
  assert!(!b.truncated);
  let mut lines = b"x\n".repeat(MAX_LINES - 1);
  lines.push(b'x');
  assert!(!collect(&[&lines]).truncated);
}

#[test]
fn exactly_max_lines_is_not_truncated() {
  let b = collect(&[&b"x\n".repeat(MAX_LINES)]);
  assert!(!b.truncated);
  assert_eq!(b.kept_lines, MAX_LINES as u64);
}

#[test]
fn byte_cap_cuts_at_line_end() {
  let line = format!("{}\n", "a".repeat(99));
  let b = collect(&[line.repeat(1000).as_bytes()]);
  assert!(b.truncated);
  let (text, by) = cut(&b.text, MAX_BYTES, MAX_LINES);
  assert_eq!(by, Some(Cap::Bytes));
  assert!(text.len() <= MAX_BYTES);
  assert!(text.ends_with('\n'));
  assert_eq!(b.total_bytes, 100_000);
}

#[test]
fn one_huge_line_is_cut_on_a_char_boundary() {
  let text = "é".repeat(MAX_BYTES); // 2 bytes each
  let b = collect(&[text.as_bytes()]);
  assert!(b.truncated);
  let (text, _) = cut(&b.text, MAX_BYTES, MAX_LINES);
  assert!(text.len() <= MAX_BYTES && text.len() >= MAX_BYTES - 400);
  assert!(text.chars().all(|c| c == 'é'));
}

#[test]
fn char_split_across_chunks_survives() {
  let b = collect(&[&[0xE2, 0x86], &[0x92, b'\n']]);
  assert_eq!(b.text, "→\n");
}

#[test]
fn stderr_keeps_only_the_tail() {
  let mut t = StderrTail::new();
  t.push(&b"A".repeat(10_000));
  t.push(b"END");
  let s = t.finish();
  assert_eq!(s.len(), STDERR_TAIL_BYTES);
  assert!(s.ends_with("END"));
}

#[test]
fn stderr_tail_drops_a_leading_fragment_so_secrets_cannot_hide_in_it() {
  let mut t = StderrTail::new();
  let filler = "f".repeat(STDERR_TAIL_BYTES - 20);
  t.push(format!("OPENAI_API_KEY=sk-live-THE-SECRET-VALUE\n{filler}\nlast line").as_bytes());
  let s = t.finish();
  assert!(!s.contains("SECRET"), "{s}");
  assert!(s.ends_with("last line"));
}

#[test]
fn stderr_tail_starts_on_char_boundary() {
  let mut t = StderrTail::new();
  t.push("€".repeat(3000).as_bytes()); // 3 bytes each, 9000 bytes
  let s = t.finish();
  let s = s.strip_prefix(super::stderr_tail::CUT_MARK).unwrap();
  assert!(s.chars().all(|c| c == '€'));
  assert!(s.len() <= STDERR_TAIL_BYTES);
}

#[test]
fn stderr_ending_in_one_line_longer_than_the_tail_keeps_its_end_marked_as_cut() {
  for (line, end) in [
    (format!("{}THE END\n", "x".repeat(10_000)), "THE END"),
    (
      format!("{}THE END\r\n\n  \n", "y ".repeat(600_000)),
      "THE END",
    ),
    (format!("word {}€END", "€".repeat(5_000)), "€END"),
  ] {
    let mut t = StderrTail::new();
    t.push(b"an earlier whole line\n");
    t.push(line.as_bytes());
    let s = t.finish();
    assert!(s.starts_with(super::stderr_tail::CUT_MARK), "{s:.40}");
    assert!(s.trim_end().ends_with(end), "{}", &s[s.len() - 40..]);
    assert!(
      s.len() <= STDERR_TAIL_BYTES && s.len() > STDERR_TAIL_BYTES - 64,
      "{}",
      s.len()
    );
  }
}

#[test]
fn stderr_fragment_of_one_line_drops_its_partial_first_word() {
  let mut t = StderrTail::new();
  let filler = "f".repeat(STDERR_TAIL_BYTES - 30);
  t.push(format!("TOKEN=abcdefghijkSECRETVALUE rest {filler} end\n").as_bytes());
  let s = t.finish();
  assert!(!s.contains("SECRET"), "{s:.60}");
  assert!(s.starts_with("[cut]…rest "), "{s:.60}");
}

/// Totals and kept counts describe the same (cleaned) text: kept never exceeds total, and an
/// answer that fits has kept == total.
fn assert_consistent(b: &Bounded) {
  assert!(
    b.kept_lines <= b.total_lines,
    "{} of {} lines",
    b.kept_lines,
    b.total_lines
  );
  assert!(
    b.kept_bytes <= b.total_bytes,
    "{} of {} bytes",
    b.kept_bytes,
    b.total_bytes
  );
  if !b.truncated {
    assert_eq!((b.kept_lines, b.kept_bytes), (b.total_lines, b.total_bytes));
  }
}

#[test]
fn cr_progress_output_counts_its_lines_as_shown() {
  let mut progress = String::new();
  for i in 0..3000 {
    progress.push_str(&i.to_string());
    progress.push_str("%\r");
  }
  progress.push_str("done\n");
  let b = collect(&[progress.as_bytes()]);
  assert_consistent(&b);
  assert_eq!(b.total_lines, 3001);
  let crlf = "line\r\n".repeat(2500);
  let b = collect(&[crlf.as_bytes()]);
  assert_consistent(&b);
  assert_eq!(b.total_lines, 2500);
  assert_eq!(b.total_bytes, 5 * 2500, "CRLF counts as the LF it becomes");
}

#[test]
fn invalid_utf8_counts_its_bytes_as_shown() {
  let invalid = vec![0xFF; 20_000];
  let b = collect(&[&invalid]);
  assert_consistent(&b);
  assert_eq!(
    b.total_bytes,
    3 * 20_000,
    "each invalid byte is a 3-byte U+FFFD"
  );
  let small = collect(&[&[0xFF; 100], b"\n"]);
  assert_consistent(&small);
  assert!(!small.truncated);
}

#[test]
fn cr_and_invalid_utf8_at_the_cap_boundary_stay_consistent() {
  for split in [MAX_BYTES - 2, MAX_BYTES, MAX_BYTES + 1, MAX_BYTES + 3] {
    let mut bytes = vec![b'a'; split];
    bytes.extend_from_slice(b"\r\xE2\x82\r\xFF\x1b[31m\r\n");
    bytes.extend(std::iter::repeat_n(b'\r', 100));
    for chunk in [1, 7, 4096] {
      let chunks: Vec<&[u8]> = bytes.chunks(chunk).collect();
      let b = collect(&chunks);
      assert_consistent(&b);
    }
  }
}

/// The collector's tail after `chunks`, and its finished answer.
fn tail_of(chunks: &[&[u8]]) -> (String, Bounded) {
  let mut c = StdoutCollector::new(None);
  for ch in chunks {
    c.push(ch);
  }
  (c.tail(), c.finish(true))
}

#[test]
fn the_tail_follows_the_output_past_the_caps() {
  let mut c = StdoutCollector::new(None);
  assert_eq!(c.tail(), "", "nothing printed yet");
  for i in 1..=5000 {
    c.push(format!("[0.{i}s] {i}/5000 ({}%) — src/file{i}.ts\n", i / 50).as_bytes());
    if i == 2 {
      assert_eq!(
        c.tail(),
        "[0.1s] 1/5000 (0%) — src/file1.ts\n[0.2s] 2/5000 (0%) — src/file2.ts\n"
      );
    }
  }
  let tail = c.tail();
  assert!(
    tail.ends_with("[0.5000s] 5000/5000 (100%) — src/file5000.ts\n"),
    "{tail}"
  );
  assert!(tail.len() <= OUTPUT_TAIL_BYTES && tail.len() > OUTPUT_TAIL_BYTES - 60);
  assert!(tail.starts_with("[0."), "from a whole line: {tail:.40}");
  let (preview, seen_bytes, _) = c.preview();
  assert!(!preview.contains("5000/5000"), "the caps did not keep it");
  assert!(seen_bytes > MAX_BYTES as u64);
}

#[test]
fn the_tail_is_cleaned_as_the_text_is() {
  let (tail, b) = tail_of(&[
    b"\x1b[32m\xe2\x97\x86\x1b[39m  Indexed 7 files\r\n",
    b"50%\r100%\r",
    b"\x1b]0;title\x07done\n",
  ]);
  assert_eq!(tail, "◆  Indexed 7 files\n50%\n100%\ndone\n");
  assert!(!b.truncated);
  assert_eq!(
    b.output_tail, None,
    "a whole answer ends the same way: no tail beside it"
  );
  assert_eq!(b.text, tail);
}

#[test]
fn the_tail_never_cuts_a_character_in_any_split() {
  for (unit, len) in [("é", 2), ("€", 3), ("😀", 4)] {
    let raw = unit.repeat(30_000); // past the byte cap
    for size in [1, 2, 5, 7, 1024, 4096, raw.len()] {
      let chunks: Vec<&[u8]> = raw.as_bytes().chunks(size).collect();
      let (tail, b) = tail_of(&chunks);
      assert_eq!(
        tail.len(),
        OUTPUT_TAIL_BYTES / len * len,
        "{unit} in chunks of {size}"
      );
      assert!(tail.chars().all(|ch| ch.to_string() == unit));
      assert!(b.truncated);
      assert_eq!(b.output_tail.as_deref(), Some(tail.as_str()));
    }
  }
}

#[test]
fn the_tail_starts_at_a_whole_line_unless_only_blanks_follow_the_first_newline() {
  let long = "x".repeat(3000);
  let (tail, _) = tail_of(&[format!("{long}\nsummary line\n").as_bytes()]);
  assert_eq!(tail, "summary line\n");
  // One long line, ending in a newline: its end, cut at a character boundary.
  let (tail, _) = tail_of(&[format!("first\n{long}\n\n").as_bytes()]);
  assert_eq!(tail.len(), OUTPUT_TAIL_BYTES);
  assert!(tail.starts_with('x') && tail.ends_with("x\n\n"));
  // Exactly the bound: nothing fell off, so it starts where the output starts.
  let exact = format!("{}\nend\n", "y".repeat(OUTPUT_TAIL_BYTES - 5));
  let (tail, b) = tail_of(&[exact.as_bytes()]);
  assert_eq!(tail, exact);
  assert!(!b.truncated);
}

#[test]
fn the_tail_is_the_same_whatever_the_split() {
  let mut raw = Vec::new();
  for i in 0..3000 {
    raw.extend_from_slice(format!("\x1b[1mline {i}\x1b[0m é€\r\n").as_bytes());
  }
  raw.extend_from_slice(b"\xff\xe2\x82 last words \xf0\x9f\x98");
  let whole = tail_of(&[&raw]);
  for size in [1, 3, 64, 1000, 4096] {
    let chunks: Vec<&[u8]> = raw.chunks(size).collect();
    let split = tail_of(&chunks);
    assert_eq!(split.0, whole.0, "chunks of {size}");
    assert_eq!(split.1.output_tail, whole.1.output_tail, "chunks of {size}");
  }
  // While the run goes on, a character still incomplete is not shown; the finished answer ends
  // with its replacement, as the full output does.
  assert!(
    whole.0.ends_with("\u{FFFD}\u{FFFD} last words "),
    "{:?}",
    &whole.0[whole.0.len() - 30..]
  );
  let output_tail = whole.1.output_tail.unwrap();
  assert!(output_tail.ends_with(" last words \u{FFFD}"));
  assert!(output_tail.starts_with("line "), "{output_tail:.20}");
}

#[test]
fn a_truncated_answer_carries_the_output_tail() {
  let mut raw = "x\n".repeat(MAX_LINES + 10);
  raw.push_str("◆  Indexed 7 files\n●  43 nodes, 81 edges in 264ms\n└  Done\n");
  let (_, b) = tail_of(&[raw.as_bytes()]);
  assert!(b.truncated);
  let tail = b.output_tail.unwrap();
  assert!(
    tail.ends_with("●  43 nodes, 81 edges in 264ms\n└  Done\n"),
    "{tail}"
  );
  assert!(!b.text.contains("Done"));
}
