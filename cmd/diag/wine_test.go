package main

import (
	"os"
	"runtime"
	"testing"
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
