package console

import (
	"os"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// cpUTF8 is the UTF-8 code page.
const cpUTF8 = 65001

var procWideCharToMultiByte = windows.NewLazySystemDLL("kernel32.dll").NewProc("WideCharToMultiByte")

// EnableVT turns on VT processing for the console f writes to, so that
// the escapes of the live progress are drawn, not printed; false when f is
// not a console or the console cannot process them (then none may be
// written). The mode belongs to the console screen buffer: enabling it on
// stdout, as colour libraries do, does nothing for stderr when stdout is
// redirected.
func EnableVT(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	const want = windows.ENABLE_PROCESSED_OUTPUT | windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING
	if mode&want == want {
		return true
	}
	return windows.SetConsoleMode(h, mode|want) == nil
}

// RedirectedCodePage is the code page the reader of f expects when f is
// redirected (a pipe or a file) from a console whose output code page is
// not UTF-8: PowerShell 5.1 decodes a program's output with the console's
// code page. 0 when UTF-8 is right: f is the console itself (Go writes it
// as UTF-16), there is no console, or the console is set to UTF-8.
func RedirectedCodePage(f *os.File) uint32 {
	var mode uint32
	if windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil {
		return 0
	}
	cp, err := windows.GetConsoleOutputCP()
	if err != nil || cp == 0 || cp == cpUTF8 {
		return 0
	}
	return cp
}

// encodeRune is r in code page cp, when cp has it (no best fit: "→" is
// not to become "?" or "a" silently, it has its stand-in).
func encodeRune(r rune, cp uint32) ([]byte, bool) {
	const wcNoBestFitChars = 0x400
	u := utf16.Encode([]rune{r})
	var buf [8]byte
	var usedDefault int32
	n, _, _ := procWideCharToMultiByte.Call(uintptr(cp), wcNoBestFitChars, uintptr(unsafe.Pointer(&u[0])), uintptr(len(u)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, uintptr(unsafe.Pointer(&usedDefault)))
	if n == 0 || usedDefault != 0 {
		return nil, false
	}
	return append([]byte(nil), buf[:n]...), true
}
