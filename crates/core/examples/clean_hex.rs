//! The Rust side of the cleaners' differential check (`.ci/clean-differential.mjs`): each line
//! of stdin is one input as comma-separated hex chunks, pushed one by one through a `Cleaner`;
//! each line of stdout is the cleaned text as hex. A line is answered (and flushed) before the
//! next is read, so the check can also ask one input at a time while it shrinks a difference.

use std::io::{self, BufRead, Write};

use pi_codegraph_core::sanitize::Cleaner;

fn main() -> io::Result<()> {
  let stdout = io::stdout();
  let mut out = io::BufWriter::new(stdout.lock());
  for line in io::stdin().lock().lines() {
    let line = line?;
    let mut text = String::new();
    let mut cleaner = Cleaner::new();
    for chunk in line.split(',') {
      cleaner.push(&from_hex(chunk)?, &mut text);
    }
    cleaner.finish(&mut text);
    for byte in text.as_bytes() {
      write!(out, "{byte:02x}")?;
    }
    writeln!(out)?;
    out.flush()?;
  }
  Ok(())
}

fn from_hex(hex: &str) -> io::Result<Vec<u8>> {
  let bad = || io::Error::new(io::ErrorKind::InvalidData, format!("not hex: {hex:?}"));
  if !hex.len().is_multiple_of(2) {
    return Err(bad());
  }
  (0..hex.len())
    .step_by(2)
    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
    .collect()
}
