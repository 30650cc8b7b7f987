/*
 * cgbench-fake: a tiny stand-in for `codegraph`, compiled by the bench (gcc -O2, static when the
 * toolchain allows) so that process start, not Node start-up, dominates what is measured.
 *
 *   cgbench-fake --version                    prints a version line
 *   cgbench-fake explore -- "<spec>"          spec: space-separated key=value, in any order
 *       bytes=N   print N bytes of 80-byte lines, then exit 0           (default 0)
 *       sleep=M   sleep M ms (before printing)                           (default 0)
 *       flood=N   write N bytes of lines as fast as the pipe takes them  (1 GiB = 1073741824)
 *       tree=1    fork first, like CodeGraph's npm shim: the child does the work, the parent
 *                 waits for it and exits with its status (both are named cgbench-fake)
 *
 * The spec arrives as the explore request (the last argv element), so explore(), execFile and the
 * Rust floor all drive it the same way.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long spec_value(const char *spec, const char *key) {
  size_t n = strlen(key);
  for (const char *p = spec; p && *p;) {
    while (*p == ' ') p++;
    if (strncmp(p, key, n) == 0 && p[n] == '=') return atoll(p + n + 1);
    p = strchr(p, ' ');
  }
  return 0;
}

static int write_all(const char *buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(1, buf, len);
    if (w <= 0) return -1;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Writes `total` bytes of 80-byte lines ("xxx...x\n") in 64 KiB chunks. */
static int emit(long long total) {
  static char chunk[64 * 1024];
  for (size_t i = 0; i < sizeof chunk; i++) chunk[i] = (i % 80 == 79) ? '\n' : 'x';
  while (total > 0) {
    size_t n = total < (long long)sizeof chunk ? (size_t)total : sizeof chunk;
    if (write_all(chunk, n) != 0) return 1;
    total -= (long long)n;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    puts("cgbench-fake 1.0.0");
    return 0;
  }
  const char *spec = argc > 1 ? argv[argc - 1] : "";
  if (spec_value(spec, "tree")) {
    pid_t child = fork();
    if (child < 0) return 70;
    if (child > 0) {
      int status = 0;
      while (waitpid(child, &status, 0) < 0) {
      }
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
  long long sleep_ms = spec_value(spec, "sleep");
  if (sleep_ms > 0) {
    struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  long long flood = spec_value(spec, "flood");
  if (flood > 0) return emit(flood);
  return emit(spec_value(spec, "bytes"));
}
