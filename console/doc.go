// Package console adapts diag's text output to the Windows console it
// runs in: escape codes only where the console processes them (VT
// processing is enabled per stream), and text redirected into PowerShell
// 5.1 (> file, | clip, Out-File) in the code page PowerShell reads it in,
// the console's, not UTF-8. Elsewhere it changes nothing.
//
// Imports: none.
package console
