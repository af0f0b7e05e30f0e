// Package hostexec runs the node's tools (PowerShell, vfpctrl, netsh,
// pktmon, ip) for the collectors and live capture: one runner, with the
// guards a node needs (a tool's process tree ended with it, a grandchild
// holding the pipes not waited for, standard error bounded and its first
// line made printable).
//
// Imports: redact (a tool's UTF-16 error text decoded).
package hostexec
