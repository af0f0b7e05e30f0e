// Command standin plays the node's tools (powershell.exe, vfpctrl, pktmon,
// netsh) in tests of the Windows build, under Wine or on a real Windows
// machine, and of the same code on Linux: it is installed under each
// tool's name and does what the rules file DIAG_STANDIN_RULES says for the
// arguments it was given: replay recorded output, print a UTF-8 BOM first,
// fail, hang, write a file named by an argument, or leave a grandchild
// holding its output. It appends each call to DIAG_STANDIN_LOG. The rules
// are written by package standintest.
//
// Imports: tools/wine/standin/standintest (the rules format).
package main
