//! The request's own rules: not blank, no NUL, at most `MAX_REQUEST_CHARS` UTF-16 units (what
//! JS `length` counts), checked before anything on disk is looked at.

use crate::caps::MAX_REQUEST_CHARS;
use crate::errors::{CodegraphError, RequestReason};

pub fn check_request(request: &str) -> Result<(), CodegraphError> {
  let invalid = |reason| Err(CodegraphError::InvalidRequest { reason });
  if request.chars().all(is_blank_char) {
    return invalid(RequestReason::Blank);
  }
  if request.contains('\0') {
    return invalid(RequestReason::Nul);
  }
  // The CLI checks `query.length`, which counts UTF-16 code units (an emoji counts 2), and so
  // does the tool schema's maxLength in JS.
  let units = request.encode_utf16().count();
  if units > MAX_REQUEST_CHARS {
    return invalid(RequestReason::TooLong {
      units,
      limit: MAX_REQUEST_CHARS,
    });
  }
  Ok(())
}

/// The one rule of a blank request, shared with the tools' arguments (`lib/contract/files.js` `BLANK`): every
/// character is Unicode White_Space (`char::is_whitespace`: U+0085, U+00A0, U+3000 …), a control
/// (Cc) or a format character (Cf: U+FEFF, U+200B, the bidi controls, tag characters …). Such a
/// request shows nothing a person could read, so the CLI would answer a question nobody asked.
pub fn is_blank_char(c: char) -> bool {
  c.is_whitespace() || c.is_control() || is_format(c)
}

/// Unicode general category Cf (Format), Unicode 15.1; the Node runner's `\p{Cf}` is the same set.
fn is_format(c: char) -> bool {
  matches!(
    u32::from(c),
    0xAD
      | 0x600..=0x605
      | 0x61C
      | 0x6DD
      | 0x70F
      | 0x890..=0x891
      | 0x8E2
      | 0x180E
      | 0x200B..=0x200F
      | 0x202A..=0x202E
      | 0x2060..=0x2064
      | 0x2066..=0x206F
      | 0xFEFF
      | 0xFFF9..=0xFFFB
      | 0x110BD
      | 0x110CD
      | 0x13430..=0x1343F
      | 0x1BCA0..=0x1BCA3
      | 0x1D173..=0x1D17A
      | 0xE0001
      | 0xE0020..=0xE007F
  )
}
