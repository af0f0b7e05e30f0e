//go:build !windows

package console

import "os"

// EnableVT: terminals outside Windows process escapes as they are.
func EnableVT(*os.File) bool { return true }

// RedirectedCodePage: outside Windows, text is UTF-8 wherever it goes.
func RedirectedCodePage(*os.File) uint32 { return 0 }

func encodeRune(rune, uint32) ([]byte, bool) { return nil, false }
