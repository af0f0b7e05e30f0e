// Command standin is what kwok runs for an exec into a collector pod in
// the tests of diag collect --cluster against a real API server: invoked
// as cmd.exe (a Windows pod's command) or diag (a Linux pod's), it checks
// the command line is the one a node would run, then behaves as its node
// says (DIAG_STANDIN_BEHAVE):
//
//	ok       runs the real diag collect (DIAG_STANDIN_DIAG) with those arguments
//	partial  the same, then exits 3 as a collection with failed collectors does
//	fail     says why on stderr and exits 1, sending nothing
//	hang     sends nothing and never exits
//
// Imports: none.
package main
