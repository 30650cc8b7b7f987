/* Wine 8.0 lacks bcryptprimitives.dll, from which Rust >= 1.78 std imports ProcessPrng.
   This shim forwards to BCryptGenRandom (bcrypt.dll, which Wine has). */
#include <windows.h>
#include <bcrypt.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
