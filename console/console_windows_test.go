package console

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// conout is the console of this process, made when there is none (make
// test-windows runs the tests with their output in a file).
func conout(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile("CONOUT$", os.O_RDWR, 0)
	if err != nil {
		if r, _, _ := windows.NewLazySystemDLL("kernel32.dll").NewProc("AllocConsole").Call(); r != 0 {
			f, err = os.OpenFile("CONOUT$", os.O_RDWR, 0)
		}
	}
	if err != nil {
		t.Skipf("no console (Wine makes one only for a program started from a terminal; make test-windows runs this package under script(1)): %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// VT processing is enabled on the stream given, a console whatever the
// other streams are; a pipe is no console (no escapes may go there). A
// pipe from a console in a code page other than UTF-8 is written in that
// code page, the console itself never.
func TestEnableVTAndCodePage(t *testing.T) {
	con := conout(t)
	h := windows.Handle(con.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		t.Fatal(err)
	}
	if err := windows.SetConsoleMode(h, mode&^windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING); err != nil {
		t.Fatal(err)
	}
	if !EnableVT(con) {
		t.Fatal("EnableVT on the console: false")
	}
	if err := windows.GetConsoleMode(h, &mode); err != nil || mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING == 0 {
		t.Errorf("console mode %#x after EnableVT: %v", mode, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if EnableVT(w) {
		t.Error("EnableVT on a pipe: true")
	}
	if cp := RedirectedCodePage(con); cp != 0 {
		t.Errorf("the console itself: code page %d, want 0 (written as UTF-16)", cp)
	}
	cp, err := windows.GetConsoleOutputCP()
	if err != nil {
		t.Fatal(err)
	}
	want := cp
	if cp == cpUTF8 {
		want = 0
	}
	if got := RedirectedCodePage(w); got != want {
		t.Errorf("a pipe from a console in code page %d: %d, want %d", cp, got, want)
	}
}
