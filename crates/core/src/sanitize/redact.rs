//! Masking of credentials a CLI may echo into its error output.

use std::sync::OnceLock;

use regex::Regex;

/// A value after a key: double-quoted (backslash escapes; unterminated runs to the end of the
/// line), single-quoted (likewise), or unquoted up to whitespace — `;`, `,` and the like are
/// part of it.
macro_rules! value {
  () => {
    r#"(?:"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|\S+)"#
  };
}

/// Key names that hold a secret when a value is assigned to them (`=`, `:`, `:=`, `=>`). The
/// key is a whole word (not after `/`) and must END with the word (`GITHUB_TOKEN`, `clientSecret`, `x-api-key`), so `token_count`,
/// `PASSWORD_FILE` or `tokens` are not keys; `pwd` and `auth` need a separator before them
/// (`DB_PWD`, `basic_auth`; the shell's `PWD`/`OLDPWD` are directories) or stand alone
/// (`auth`).
macro_rules! secret_key {
  () => {
    concat!(
      r"(?:[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passphrase|api[ _.-]?key|",
      r"access[_.-]?key|account[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?|session[_.-]?id)",
      r"|[A-Za-z0-9_.-]*[_.-](?:pwd|auth)|\bauth)"
    )
  };
}

/// The redaction rules, applied in order: (name, pattern, replacement). The approach is the one
/// of gitleaks and detect-secrets: known token formats by their prefix (kept visible, so one
/// can tell which credential it was), and values after key names that mean a secret (the key
/// kept visible). Specific rules come first; a masked value reads `[REDACTED]`, which later
/// rules leave as it is.
const RULES: &[(&str, &str, &str)] = &[
  // Before everything else, as it spans lines; unterminated (text cut) masks to the end.
  (
    "pem-private-key",
    r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    "${1}[REDACTED]${2}",
  ),
  // scheme://user:password@host — the password is everything up to the last `@` before the
  // path, so an unencoded `@` in it does not leak the rest.
  (
    "url-credentials",
    r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/?#@]*):[^\s/?#]+@",
    "${1}${2}:[REDACTED]@",
  ),
  (
    "authorization-header",
    r#"(?i)\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm|bot|apikey)[ \t]+)?)[^\s"']+"#,
    "${1}[REDACTED]",
  ),
  // Cookies carry sessions; the whole header value goes.
  (
    "cookie-header",
    r#"(?i)\b((?:set-)?cookie["']?[ \t]*:[ \t]*)[^\r\n]+"#,
    "${1}[REDACTED]",
  ),
  // --password value, --password=value, -token value (after a word start, so `my-token` is
  // not a flag); `-p` is too generic.
  (
    "cli-flag",
    concat!(
      r"(?im)(^|[\s'(=\[])(--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|token|secret|",
      r"api[-_]?key|access[-_]?key|private[-_]?key|secret[-_]?key|credentials?|auth)(?:=|[ \t]+))",
      value!()
    ),
    "${1}${2}[REDACTED]",
  ),
  (
    "key-assignment",
    concat!(
      // The key is a whole word, not after `/`: not a path (`src/auth/token:12`), not a URL's
      // user (`https://x-access-token:…@host`, handled above).
      r#"(?im)((?:^|[^/A-Za-z0-9_.-])"#,
      secret_key!(),
      r#"["']?[ \t]*(?::=|=>|[=:])[ \t]*)"#,
      value!()
    ),
    "${1}[REDACTED]",
  ),
  // A .netrc entry (`machine host login me password pw`), or a line that is only `password pw`.
  (
    "netrc-password",
    r"(?i)\b(machine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+)\S+",
    "${1}[REDACTED]",
  ),
  (
    "password-line",
    r"(?im)^([ \t]*password[ \t]+)\S+[ \t]*$",
    "${1}[REDACTED]",
  ),
  // Webhook URLs are their own credential: the path after the fixed part goes.
  (
    "webhook-url",
    r"\b(https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/))[^\s\x22'<>]+",
    "${1}[REDACTED]",
  ),
  // A bare bearer token; at least 8 token characters so prose ("bearer tokens") stays.
  (
    "bearer",
    r"(?i)\b(bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}",
    "${1}[REDACTED]",
  ),
  (
    "github",
    r"\b(gh[pousr]_)[A-Za-z0-9]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "github-fine-grained",
    r"\b(github_pat_)[A-Za-z0-9_]{20,}",
    "${1}[REDACTED]",
  ),
  // OpenAI (sk-, sk-proj-, …) and Anthropic (sk-ant-…); 20+ characters, so `sk-learn` stays.
  (
    "sk-api-key",
    r"\b(sk-(?:[a-z]+-)?)[A-Za-z0-9_-]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "aws-access-key-id",
    r"\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
    "${1}[REDACTED]",
  ),
  (
    "slack",
    r"\b(xox[abposre]-|xapp-)[A-Za-z0-9-]{10,}",
    "${1}[REDACTED]",
  ),
  (
    "google-api-key",
    r"\b(AIza)[0-9A-Za-z_-]{35}",
    "${1}[REDACTED]",
  ),
  (
    "stripe",
    r"\b((?:sk|rk|pk)_(?:live|test)_)[0-9A-Za-z]{10,}",
    "${1}[REDACTED]",
  ),
  ("npm", r"\b(npm_)[A-Za-z0-9]{36}", "${1}[REDACTED]"),
  (
    "gitlab",
    r"\b(gl(?:pat|dt|rt|ptt|cbt|soat)-)[0-9A-Za-z_-]{20,}",
    "${1}[REDACTED]",
  ),
  ("huggingface", r"\b(hf_)[A-Za-z0-9]{30,}", "${1}[REDACTED]"),
  ("pypi", r"\b(pypi-)AgE[A-Za-z0-9_-]{20,}", "${1}[REDACTED]"),
  (
    "docker-hub",
    r"\b(dckr_pat_)[A-Za-z0-9_-]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "sendgrid",
    r"\b(SG\.)[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    "${1}[REDACTED]",
  ),
  (
    "google-oauth",
    r"\b(ya29\.)[0-9A-Za-z_-]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "jwt",
    r"\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*",
    "[REDACTED]",
  ),
];

/// Masks credentials a CLI might echo into its stderr (or the start of its stdout on a failed
/// run) with `[REDACTED]`, keeping key names and token prefixes visible. See [`RULES`].
///
/// Applied to error output, not to the answer: it errs towards masking (`password =
/// getPassword();` loses its right-hand side), while paths, identifiers and prose stay.
pub fn redact(text: &str) -> String {
  struct Compiled {
    rules: Vec<(Regex, &'static str)>,
    pem_begin: Regex,
    pem_end: Regex,
  }
  static COMPILED: OnceLock<Compiled> = OnceLock::new();
  let compiled = COMPILED.get_or_init(|| Compiled {
    rules: RULES
      .iter()
      .map(|(name, pattern, replacement)| {
        let re = Regex::new(pattern).unwrap_or_else(|e| panic!("redaction rule {name}: {e}"));
        (re, *replacement)
      })
      .collect(),
    pem_begin: Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("valid"),
    pem_end: Regex::new(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("valid"),
  });
  let mut text = text.to_owned();
  // A tail that starts inside a key block (its BEGIN cut off): mask from the start to its END.
  if let Some(end) = compiled.pem_end.find(&text) {
    if compiled
      .pem_begin
      .find(&text)
      .is_none_or(|begin| begin.start() > end.start())
    {
      text.replace_range(..end.start(), "[REDACTED]");
    }
  }
  for (re, replacement) in &compiled.rules {
    if let std::borrow::Cow::Owned(replaced) = re.replace_all(&text, *replacement) {
      text = replaced;
    }
  }
  text
}
