// Redaction: what of a CLI's own text the model may read. Credentials a CLI echoes into its
// stderr (or the start of its stdout on a failed run) are masked with `[REDACTED]`, key names and
// token prefixes kept visible. Both runners hand over the clean, bounded but unredacted tail;
// it is masked here, where it becomes a message or `details` (the one place for these rules:
// __test__/corpora/redact.json holds a case for each).

const { CUT_MARK, STDERR_TAIL_BYTES, isContinuation } = require("../contract/limits.js");

// A value after a key: double-quoted (backslash escapes; unterminated runs to the end of the
// line), single-quoted (likewise), or unquoted up to whitespace.
const SECRET_VALUE = String.raw`(?:"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|\S+)`;
// Key names that hold a secret when a value is assigned to them; the key must END with the word.
const SECRET_KEY =
  "(?:[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passphrase|api[ _.-]?key|" +
  "access[_.-]?key|account[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?|session[_.-]?id)" +
  String.raw`|[A-Za-z0-9_.-]*[_.-](?:pwd|auth)|\bauth)`;

/**
 * The redaction rules, in order: [name, pattern, flags, replacement]. Known
 * token formats by their prefix (kept visible), and values after key names that mean a secret.
 */
const REDACTION_RULES = [
  [
    "pem-private-key",
    String.raw`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`,
    "g",
    "$1[REDACTED]$2",
  ],
  ["url-credentials", String.raw`\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/?#@]*):[^\s/?#]+@`, "g", "$1$2:[REDACTED]@"],
  [
    "authorization-header",
    String.raw`\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm|bot|apikey)[ \t]+)?)[^\s"']+`,
    "gi",
    "$1[REDACTED]",
  ],
  ["cookie-header", String.raw`\b((?:set-)?cookie["']?[ \t]*:[ \t]*)[^\r\n]+`, "gi", "$1[REDACTED]"],
  [
    "cli-flag",
    String.raw`(^|[\s'(=\[])(--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|token|secret|` +
      String.raw`api[-_]?key|access[-_]?key|private[-_]?key|secret[-_]?key|credentials?|auth)(?:=|[ \t]+))` +
      SECRET_VALUE,
    "gim",
    "$1$2[REDACTED]",
  ],
  [
    "key-assignment",
    `((?:^|[^/A-Za-z0-9_.-])${SECRET_KEY}["']?[ \t]*(?::=|=>|[=:])[ \t]*)${SECRET_VALUE}`,
    "gim",
    "$1[REDACTED]",
  ],
  [
    "netrc-password",
    String.raw`\b(machine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+)\S+`,
    "gi",
    "$1[REDACTED]",
  ],
  ["password-line", String.raw`^([ \t]*password[ \t]+)\S+[ \t]*$`, "gim", "$1[REDACTED]"],
  [
    "webhook-url",
    String.raw`\b(https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/))[^\s"'<>]+`,
    "g",
    "$1[REDACTED]",
  ],
  ["bearer", String.raw`\b(bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}`, "gi", "$1[REDACTED]"],
  ["github", String.raw`\b(gh[pousr]_)[A-Za-z0-9]{20,}`, "g", "$1[REDACTED]"],
  ["github-fine-grained", String.raw`\b(github_pat_)[A-Za-z0-9_]{20,}`, "g", "$1[REDACTED]"],
  ["sk-api-key", String.raw`\b(sk-(?:[a-z]+-)?)[A-Za-z0-9_-]{20,}`, "g", "$1[REDACTED]"],
  ["aws-access-key-id", String.raw`\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, "g", "$1[REDACTED]"],
  ["slack", String.raw`\b(xox[abposre]-|xapp-)[A-Za-z0-9-]{10,}`, "g", "$1[REDACTED]"],
  ["google-api-key", String.raw`\b(AIza)[0-9A-Za-z_-]{35}`, "g", "$1[REDACTED]"],
  ["stripe", String.raw`\b((?:sk|rk|pk)_(?:live|test)_)[0-9A-Za-z]{10,}`, "g", "$1[REDACTED]"],
  ["npm", String.raw`\b(npm_)[A-Za-z0-9]{36}`, "g", "$1[REDACTED]"],
  ["gitlab", String.raw`\b(gl(?:pat|dt|rt|ptt|cbt|soat)-)[0-9A-Za-z_-]{20,}`, "g", "$1[REDACTED]"],
  ["huggingface", String.raw`\b(hf_)[A-Za-z0-9]{30,}`, "g", "$1[REDACTED]"],
  ["pypi", String.raw`\b(pypi-)AgE[A-Za-z0-9_-]{20,}`, "g", "$1[REDACTED]"],
  ["docker-hub", String.raw`\b(dckr_pat_)[A-Za-z0-9_-]{20,}`, "g", "$1[REDACTED]"],
  ["sendgrid", String.raw`\b(SG\.)[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, "g", "$1[REDACTED]"],
  ["google-oauth", String.raw`\b(ya29\.)[0-9A-Za-z_-]{20,}`, "g", "$1[REDACTED]"],
  ["jwt", String.raw`\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`, "g", "[REDACTED]"],
];
let compiledRedaction = null;

/**
 * Masks credentials a CLI might echo into its stderr (or the start of its stdout on a failed
 * run) with `[REDACTED]`, keeping key names and token prefixes visible.
 */
function redact(text) {
  compiledRedaction ??= {
    rules: REDACTION_RULES.map(([, pattern, flags, replacement]) => [new RegExp(pattern, flags), replacement]),
    pemBegin: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/,
    pemEnd: /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/,
  };
  const { rules, pemBegin, pemEnd } = compiledRedaction;
  let out = String(text);
  // A tail that starts inside a key block (its BEGIN cut off): mask from the start to its END.
  const end = pemEnd.exec(out);
  if (end) {
    const begin = pemBegin.exec(out);
    if (!begin || begin.index > end.index) out = `[REDACTED]${out.slice(end.index)}`;
  }
  for (const [re, replacement] of rules) out = out.replace(re, replacement);
  return out;
}

/**
 * A stderr tail (or stdout excerpt) as the model may read it: redacted, then kept within
 * STDERR_TAIL_BYTES (a mask can be longer than what it hides; the end is kept, as the tail's is).
 * A tail the runner marked as cut keeps its mark in front.
 */
function redactTail(text) {
  const cut = text.startsWith(CUT_MARK);
  const buf = Buffer.from(redact(cut ? text.slice(CUT_MARK.length) : text));
  const room = STDERR_TAIL_BYTES - (cut ? Buffer.byteLength(CUT_MARK) : 0);
  let from = Math.max(0, buf.length - room);
  while (isContinuation(buf[from])) from += 1;
  return (cut ? CUT_MARK : "") + buf.subarray(from).toString();
}

module.exports = { REDACTION_RULES, redact, redactTail, CUT_MARK };
