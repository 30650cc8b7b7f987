//! Redaction: known token formats and values after secret-looking keys are masked, ordinary
//! CodeGraph output survives.

use pi_codegraph_core::sanitize::redact;

/// Redacts `text`; asserts each secret is gone, each kept string survives; returns the text.
fn assert_redacted(text: &str, secrets: &[&str], kept: &[&str]) -> String {
  let out = redact(text);
  for secret in secrets {
    assert!(!out.contains(secret), "{secret:?} leaked: {out}");
  }
  for keep in kept {
    assert!(out.contains(keep), "{keep:?} lost: {out}");
  }
  out
}

#[test]
fn redacts_assignments_and_bearer_tokens() {
  let text = "GITHUB_TOKEN=ghp_abc123 password: hunter2 API_KEY=\"sk live\" Authorization: Bearer eyJ.a-b_c ok=1";
  let out = redact(text);
  for secret in ["ghp_abc123", "hunter2", "sk live", "eyJ.a-b_c"] {
    assert!(!out.contains(secret), "{out}");
  }
  assert!(
    out.contains("GITHUB_TOKEN=[REDACTED]")
      && out.contains("Bearer [REDACTED]")
      && out.contains("ok=1")
  );
}

#[test]
fn redacts_env_style_assignments_by_key_name() {
  let out = assert_redacted(
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG SECRET_KEY=s3cr3t PRIVATE_KEY=pk1 \
     passwd=pw1 DB_PASSWORD=pw2 DB_PWD=pw3 my_apikey=k1 X_API-KEY = k2 ACCESS_KEY: k3 \
     basic_auth=u:p CREDENTIALS=c1 SESSION_ID=sid1 CLIENT_SECRET='cs1' ok=1",
    &[
      "wJalrXUtnFEMI",
      "s3cr3t",
      "pk1",
      "pw1",
      "pw2",
      "pw3",
      "k1",
      "k2",
      "k3",
      "u:p",
      "c1",
      "sid1",
      "cs1",
    ],
    &[
      "AWS_SECRET_ACCESS_KEY=",
      "DB_PWD=",
      "CLIENT_SECRET=",
      "ok=1",
    ],
  );
  assert!(out.contains("DB_PASSWORD=[REDACTED] "), "{out}");
}

#[test]
fn key_names_are_case_insensitive_and_quoted() {
  assert_redacted(
    r#"{"apiKey": "k-1", "api_key":"k-2", "password" : "p-3", "clientSecret": "c-4", "accessToken":"t-5", "ok": 1}"#,
    &["k-1", "k-2", "p-3", "c-4", "t-5"],
    &[r#""apiKey": [REDACTED]"#, r#""ok": 1"#],
  );
  assert_redacted(
    "token: abc123\nname: demo\nPassword: 'x y'\n",
    &["abc123", "x y"],
    &["token: [REDACTED]\n", "name: demo\n"],
  );
}

#[test]
fn http_headers_are_masked() {
  assert_redacted(
    "x-api-key: key-1\nAuthorization: Basic dXNlcjpwYXNz\nauthorization: token tok-2\n\
     Authorization: Bearer tok-3\nProxy-Authorization: raw-4\ncurl -H 'Bearer tok-5-abcdef'\n\
     Cookie: sid=s-6; theme=dark\n< Set-Cookie: session=s-7; Path=/; HttpOnly\nAccept: */*\n",
    &[
      "key-1",
      "dXNlcjpwYXNz",
      "tok-2",
      "tok-3",
      "raw-4",
      "tok-5",
      "s-6",
      "s-7",
      "dark",
    ],
    &[
      "Authorization: Basic [REDACTED]",
      "authorization: token [REDACTED]",
      "Set-Cookie: [REDACTED]",
      "Accept: */*",
    ],
  );
}

#[test]
fn url_credentials_are_masked() {
  assert_redacted(
    "fetch https://bob:hunter2@example.com/repo.git failed; \
     https://x-access-token:ghs_0123456789abcdefghijABCDEF@github.com/o/r.git \
     postgres://app:p%40ss@db:5432/x redis://:redispass@cache:6379 mongodb://u:a@b@h/x \
     see http://example.com:8080/path",
    &["hunter2", "ghs_0123", "p%40ss", "redispass", "a@b"],
    &[
      "https://bob:[REDACTED]@example.com/repo.git",
      "https://x-access-token:[REDACTED]@github.com/o/r.git",
      "postgres://app:[REDACTED]@db:5432/x",
      "redis://:[REDACTED]@cache:6379",
      "@h/x",
      "http://example.com:8080/path",
    ],
  );
}

#[test]
fn cli_flags_are_masked() {
  assert_redacted(
    "run --password hunter2 --password=pw2 --token tok3 --api-key=key4 -token tok5 \
     --token-file /tmp/t --verbose",
    &["hunter2", "pw2", "tok3", "key4", "tok5"],
    &[
      "--password [REDACTED]",
      "--api-key=[REDACTED]",
      "--token-file /tmp/t --verbose",
    ],
  );
}

#[test]
fn well_known_tokens_are_masked_anywhere() {
  let tokens = [
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "gho_0123456789abcdefghijABCDEFGHIJ012345",
    "ghu_0123456789abcdefghijABCDEFGHIJ012345",
    "ghs_0123456789abcdefghijABCDEFGHIJ012345",
    "ghr_0123456789abcdefghijABCDEFGHIJ012345",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "sk-proj-AbCdEf0123456789GhIjKlMnOp",
    "sk-ant-api03-AbCdEf0123456789GhIjKlMnOp-xyz",
    "sk-AbCdEf0123456789GhIjKlMnOpQrSt",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAIOSFODNN7EXAMPLE",
    "xoxb-123456789012-abcdefABCDEF",
    "xoxp-123456789012-abcdefABCDEF",
    "AIzaSyA0123456789abcdefghijklmnopqrstuv",
    "sk_live_0123456789abcdefABCDEF",
    "rk_live_0123456789abcdefABCDEF",
    "pk_live_0123456789abcdefABCDEF",
    "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "glpat-0123456789abcdefABCD",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6",
    "dckr_pat_abcdefghijklmnopqrstuvwxyz0",
    "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789abcdefg",
    "ya29.a0AfH6SMBabcdefghijklmnopqrstuvwxyz0123456789",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  ];
  for token in tokens {
    let text = format!("error: request with {token} failed (see src/client.ts:4)");
    let out = assert_redacted(
      &text,
      &[&token[token.len() - 12..]],
      &["error: request with ", " failed (see src/client.ts:4)"],
    );
    assert!(out.contains("[REDACTED]"), "{out}");
  }
  assert!(redact("ghp_0123456789abcdefghijABCDEFGHIJ012345").starts_with("ghp_[REDACTED]"));
}

#[test]
fn connection_strings_and_netrc_passwords_are_masked() {
  assert_redacted(
    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0a2V5c2VjcmV0a2V5Kw==;EndpointSuffix=core.windows.net",
    &["c2VjcmV0a2V5c2VjcmV0a2V5Kw=="],
    &["AccountName=acct;AccountKey=[REDACTED]"],
  );
  assert_redacted(
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=c2VjcmV0a2V5Kw=",
    &["c2VjcmV0a2V5Kw="],
    &["SharedAccessKey=[REDACTED]"],
  );
  assert_redacted(
    "netrc: machine api.example.com login me password s3cr3tpass\n",
    &["s3cr3tpass"],
    &["machine api.example.com login me password [REDACTED]"],
  );
  assert_redacted(
    "  password s3cr3tpass\nlogin ok\n",
    &["s3cr3tpass"],
    &["login ok"],
  );
  // Prose about passwords keeps its words.
  let prose = "password is required for this repository\nthe password prompt was skipped\n";
  assert_eq!(redact(prose), prose);
}

#[test]
fn short_look_alikes_in_prose_stay() {
  let text = "uses sk-learn and task-runner; the bearer tokens were counted; AKIA is a prefix";
  assert_eq!(redact(text), text);
}

#[test]
fn pem_private_key_blocks_are_masked() {
  let text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbCd==\n-----END RSA PRIVATE KEY-----\nafter\n";
  assert_eq!(
    redact(text),
    "before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter\n"
  );
  assert_redacted(
    "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA",
    &["b3BlbnNzaC1rZXk", "AAAA"],
    &["x\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]"],
  );
  // The BEGIN line cut off the tail: everything up to the END goes.
  assert_redacted(
    "b3BlbnNzaC1rZXk\nAAAA\n-----END PRIVATE KEY-----\nerror: bad key\n",
    &["b3BlbnNzaC1rZXk", "AAAA"],
    &["[REDACTED]-----END PRIVATE KEY-----\nerror: bad key\n"],
  );
  let public = "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----";
  assert_eq!(redact(public), public);
}

#[test]
fn unterminated_quotes_and_punctuated_values_are_masked_whole() {
  assert_redacted(
    "API_KEY=\"unterminated rest of line\nnext line ok=1",
    &["unterminated", "rest of line"],
    &["API_KEY=[REDACTED]\nnext line ok=1"],
  );
  assert_redacted(
    "PASSWORD=abc;def,ghi ok=1\nTOKEN='a;b c\nSECRET=\"x\\\"y\" ok=2",
    &["abc", "def", "ghi", "a;b c", "y\""],
    &["PASSWORD=[REDACTED] ok=1", "ok=2"],
  );
}

#[test]
fn tokens_survive_a_cut_first_line() {
  // The tail began mid-assignment: the key is gone, the token prefix still gives it away.
  assert_redacted(
    "EN=ghp_0123456789abcdefghijABCDEFGHIJ012345\nerror: auth failed\n",
    &["0123456789abcdefghij"],
    &["EN=ghp_[REDACTED]\nerror: auth failed\n"],
  );
}

#[test]
fn ordinary_codegraph_output_survives() {
  let text = "Found 3 references to refreshToken:\n\
    src/auth/token.ts:12  export function refreshToken() {\n\
    src/auth/session.ts:40  const next = await refreshToken();\n\
    lib/auth/token:7 (no extension), see https://example.com/docs/auth?lang=en\n\
    The tokens are cached in src/cache/tokens.ts (token_count: 4, PASSWORD_FILE unset).\n\
    PWD=/home/me/project OLDPWD=/home/me\n";
  assert_eq!(redact(text), text);
}

#[test]
fn code_assignments_to_secret_names_are_masked() {
  assert_redacted(
    "const password = getPassword();\nlet x = 1;",
    &["getPassword"],
    &["const password = [REDACTED]\nlet x = 1;"],
  );
}
