package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/wincni/diag/ownerfile"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

// wineStandInPowerShell puts a stand-in powershell.exe answering as a
// node's would (host/os.json) on PATH under Wine, whose own powershell.exe
// is a stub that prints nothing ("fixme:powershell:wmain stub"): a
// collect --only os there then exits 0 as on a Windows node.
func wineStandInPowerShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" && os.Getenv("DIAG_UNDER_WINE") == "1" {
		standintest.Install(t, []standintest.Rule{{Tool: "powershell", BOM: true,
			Stdout: `{"Hostname":"WIN-1","ProductName":"Windows Server 2022 Datacenter","CurrentBuild":20348,"UBR":2227,"Hotfixes":[]}`}})
	}
}

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
