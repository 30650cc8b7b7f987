/* Loads a .node the way Node would (dlopen RTLD_NOW: every import must resolve against the libc
 * whose loader runs this program) and finds napi's entry point. Used by .ci/targets-lane for the
 * musl artifacts, where no Node runs on this machine. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen-smoke FILE.node\n");
    return 2;
  }
  void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  if (!dlsym(handle, "napi_register_module_v1")) {
    fprintf(stderr, "no napi_register_module_v1: %s\n", dlerror());
    return 1;
  }
  printf("dlopen ok, napi_register_module_v1 found\n");
  return 0;
}
