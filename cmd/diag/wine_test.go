package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/wincni/diag/ownerfile"
)

// skipUnderWine skips t when the Windows test binary runs under Wine (make
// test-windows sets DIAG_UNDER_WINE=1) for limit, one of Wine's own that is
// no defect of diag. Only for those: a defect of diag that Wine shows must
// fail.
func skipUnderWine(t *testing.T, limit string) {
	t.Helper()
	if runtime.GOOS == "windows" && os.Getenv("DIAG_UNDER_WINE") == "1" {
		t.Skip("Wine: " + limit)
	}
}

// wineNoPowerShell: Wine 8.0's powershell.exe is a stub that prints nothing
// and exits 0 ("fixme:powershell:wmain stub"), so every PowerShell collector
// (os among them) fails and collect exits 3 (partial).
const wineNoPowerShell = "powershell.exe is a stub that prints nothing, so the PowerShell collectors fail and collect exits 3"

// checkOwnerOnly fails t unless no one but its owner may read path (0600;
// on Windows a protected DACL for the current user alone). Under Wine it
// checks nothing: Wine 8.0 keeps no file ACL (it maps a DACL to Unix mode
// bits, the user's entry to owner and group, and makes one up from them
// when asked); ownerfile's tests read back the descriptor diag gives it.
func checkOwnerOnly(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" && os.Getenv("DIAG_UNDER_WINE") == "1" {
		t.Logf("Wine: %s: owner-only not checked, Wine 8.0 keeps no file ACL", path)
		return
	}
	if err := ownerfile.Check(path); err != nil {
		t.Error(err)
	}
}
