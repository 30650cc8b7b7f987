/* Link-time stand-in for libnode.dll: napi-build emits -lnode on windows-gnu, while napi-sys
   (dyn-symbols) resolves every napi_* from the host node.exe at run time, so nothing is
   imported from this DLL. */
__declspec(dllexport) int pi_codegraph_libnode_stub(void) { return 0; }
