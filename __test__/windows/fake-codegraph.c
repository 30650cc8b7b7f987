/* A native Windows stand-in for the `codegraph` CLI (built with mingw by .ci/windows-lane),
   driven by FAKE_CG_* environment variables like __test__/helpers/fake-codegraph.js:
     echo (default)  "FAKE EXPLORE\n" + {"argv":[...],"cwd":"..."} - argv as the CRT parses it
     lines           FAKE_CG_COUNT lines "line N"
     exit            FAKE_CG_STDOUT to stdout, FAKE_CG_STDERR (or FAKE_CG_COUNT x's + "\nTAIL-END")
                     to stderr, exit code FAKE_CG_EXIT (default 1)
     noindex         CodeGraph's "no .codegraph/ index" message, exit 1
     hang            starts a grandchild (this exe, mode sleep), writes {"self":pid,"grandchild":pid}
                     to FAKE_CG_PIDS, then sleeps until killed
   `--version` prints FAKE_CG_VERSION (default 9.9.9-fake). FAKE_CG_LOG, when set, gets one line
   per explore call. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Splits a command line the way the MSVC CRT (2008 and later), Rust's std and node do: `""`
   inside quotes is a literal quote and stays quoted. CommandLineToArgvW uses an older rule
   (`""` leaves the quotes), which would misread what Rust's batch-file escaping sends on. */
static wchar_t **split_args(const wchar_t *line, int *argc) {
  size_t len = wcslen(line);
  wchar_t **argv = calloc(len + 2, sizeof *argv);
  wchar_t *buf = calloc(len + 2, sizeof *buf * 2), *out = buf;
  const wchar_t *c = line;
  int n = 0, quoted = 0;
  /* The program name: quotes toggle, no escapes. */
  argv[n++] = out;
  for (; *c && (quoted || (*c != ' ' && *c != '\t')); c++) {
    if (*c == '"') quoted = !quoted;
    else *out++ = *c;
  }
  *out++ = 0;
  for (;;) {
    while (*c == ' ' || *c == '\t') c++;
    if (!*c) break;
    argv[n++] = out;
    quoted = 0;
    while (*c && (quoted || (*c != ' ' && *c != '\t'))) {
      if (*c == '\\') {
        size_t k = 0;
        while (c[k] == '\\') k++;
        if (c[k] == '"') {
          for (size_t i = 0; i < k / 2; i++) *out++ = '\\';
          c += k;
          if (k % 2) { *out++ = '"'; c++; }
        } else {
          for (size_t i = 0; i < k; i++) *out++ = '\\';
          c += k;
        }
      } else if (*c == '"') {
        if (quoted && c[1] == '"') { *out++ = '"'; c += 2; }
        else { quoted = !quoted; c++; }
      } else {
        *out++ = *c++;
      }
    }
    *out++ = 0;
  }
  *argc = n;
  return argv;
}

static char *utf8(const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *s = malloc(n);
  WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
  return s;
}

static void put(HANDLE h, const char *s, size_t n) {
  DWORD done;
  while (n > 0) {
    if (!WriteFile(h, s, (DWORD)(n > 65536 ? 65536 : n), &done, NULL)) return;
    s += done;
    n -= done;
  }
}
static void puts_h(HANDLE h, const char *s) { put(h, s, strlen(s)); }

static void json_str(HANDLE h, const char *s) {
  char buf[8];
  puts_h(h, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { buf[0] = '\\'; buf[1] = c; put(h, buf, 2); }
    else if (c < 0x20) { snprintf(buf, sizeof buf, "\\u%04x", c); puts_h(h, buf); }
    else put(h, (const char *)&c, 1);
  }
  puts_h(h, "\"");
}

static char *env(const char *name) {
  wchar_t wname[64], val[32768];
  MultiByteToWideChar(CP_UTF8, 0, name, -1, wname, 64);
  DWORD n = GetEnvironmentVariableW(wname, val, 32768);
  if (n == 0 || n >= 32768) return NULL;
  return utf8(val);
}

static void echo_record(HANDLE h, int argc, wchar_t **argv) {
  wchar_t cwd[MAX_PATH * 4];
  GetCurrentDirectoryW(MAX_PATH * 4, cwd);
  puts_h(h, "{\"argv\":[");
  for (int i = 1; i < argc; i++) {
    if (i > 1) puts_h(h, ",");
    json_str(h, utf8(argv[i]));
  }
  puts_h(h, "],\"cwd\":");
  json_str(h, utf8(cwd));
  puts_h(h, "}\n");
}

int main(void) {
  int argc;
  wchar_t **argv = split_args(GetCommandLineW(), &argc);
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE), err = GetStdHandle(STD_ERROR_HANDLE);
  char *mode = env("FAKE_CG_MODE");
  char *count_s = env("FAKE_CG_COUNT");
  long count = count_s ? atol(count_s) : 0;
  if (!mode) mode = "echo";

  if (argc > 1 && wcscmp(argv[1], L"--version") == 0) {
    char *v = env("FAKE_CG_VERSION");
    puts_h(out, v ? v : "9.9.9-fake");
    puts_h(out, "\n");
    return 0;
  }
  if (strcmp(mode, "sleep") == 0) { for (;;) Sleep(1000); }

  char *log = env("FAKE_CG_LOG");
  if (log) {
    wchar_t wlog[MAX_PATH * 4];
    MultiByteToWideChar(CP_UTF8, 0, log, -1, wlog, MAX_PATH * 4);
    HANDLE f = CreateFileW(wlog, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE) { echo_record(f, argc, argv); CloseHandle(f); }
  }

  if (strcmp(mode, "echo") == 0) {
    puts_h(out, "FAKE EXPLORE\n");
    echo_record(out, argc, argv);
    return 0;
  }
  if (strcmp(mode, "lines") == 0) {
    char line[32];
    for (long i = 1; i <= count; i++) { snprintf(line, sizeof line, "line %ld\n", i); puts_h(out, line); }
    return 0;
  }
  if (strcmp(mode, "exit") == 0) {
    char *so = env("FAKE_CG_STDOUT"), *se = env("FAKE_CG_STDERR"), *code = env("FAKE_CG_EXIT");
    if (so) puts_h(out, so);
    if (se) puts_h(err, se);
    else if (count > 0) {
      for (long i = 0; i < count; i++) put(err, "x", 1);
      puts_h(err, "\nTAIL-END");
    }
    return code ? atoi(code) : 1;
  }
  if (strcmp(mode, "noindex") == 0) {
    wchar_t cwd[MAX_PATH * 4];
    GetCurrentDirectoryW(MAX_PATH * 4, cwd);
    puts_h(err, "\xe2\x9c\x97 CodeGraph isn't available here \xe2\x80\x94 no .codegraph/ index exists in ");
    puts_h(err, utf8(cwd));
    puts_h(err, ".\n");
    return 1;
  }
  if (strcmp(mode, "hang") == 0) {
    wchar_t self[MAX_PATH * 4], cmdline[MAX_PATH * 4 + 8];
    GetModuleFileNameW(NULL, self, MAX_PATH * 4);
    swprintf(cmdline, MAX_PATH * 4 + 8, L"\"%ls\" sleep", self);
    SetEnvironmentVariableW(L"FAKE_CG_MODE", L"sleep");
    STARTUPINFOW si = {sizeof si};
    PROCESS_INFORMATION pi;
    DWORD gc = 0;
    if (CreateProcessW(self, cmdline, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) gc = pi.dwProcessId;
    char *pids = env("FAKE_CG_PIDS");
    if (pids) {
      char json[96], tmp[MAX_PATH * 4];
      snprintf(json, sizeof json, "{\"self\":%lu,\"grandchild\":%lu}", GetCurrentProcessId(), gc);
      snprintf(tmp, sizeof tmp, "%s.tmp", pids);
      FILE *f = fopen(tmp, "wb");
      if (f) { fputs(json, f); fclose(f); }
      MoveFileExA(tmp, pids, MOVEFILE_REPLACE_EXISTING);
    }
    for (;;) Sleep(1000);
  }
  puts_h(err, "fake codegraph: unknown mode ");
  puts_h(err, mode);
  puts_h(err, "\n");
  return 2;
}
