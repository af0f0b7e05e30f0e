// Command prngdll writes bcryptprimitives.dll, a tiny PE32+ DLL whose only
// export, ProcessPrng, is a forwarder to advapi32.SystemFunction036.
//
// Why: since Go 1.22 the runtime of every Windows binary loads
// bcryptprimitives.dll!ProcessPrng at start-up (its source of random bytes)
// and dies without it. Windows 10 and later have it; Debian 12's Wine 8.0
// does not, so no Go test binary of diag can start under stock wine64.
// SystemFunction036 is RtlGenRandom, which Wine has: BOOLEAN(PVOID, ULONG)
// against ProcessPrng's BOOL(PBYTE, SIZE_T). On amd64 both take the buffer in
// RCX and the length in RDX (Go asks for small lengths, so the 32-bit ULONG
// loses nothing), and Go only checks the result for non-zero, so a forward
// is enough: the loader resolves the export straight to RtlGenRandom and no
// code of ours runs. The DLL therefore has no code, no entry point and no
// relocations: headers plus one read-only section holding the export table.
//
// The file is written by hand with encoding/binary (the standard library has
// no PE writer). Usage: go run ./tools/wine/prngdll OUT.dll
//
// Imports: none.
package main
