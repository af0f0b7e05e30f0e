// Command diag finds out why pod and service networking is broken on a
// Windows Kubernetes node. This package is thin: it parses flags, calls the
// packages below it and maps errors to exit codes.
//
// Imports: any (the command line is the top of the graph).
package main
