// Package wire names the numbers of the wire formats diag reads (capture
// files' magic numbers, EtherTypes, IP protocols, IPv6 extension headers,
// the tunnels' UDP ports and header fields, with the RFCs' diagrams) and
// tells a UDP datagram's tunnel by its ports: once, for the capture decoder
// and for the walk that clears payloads and maps addresses in place
// (capture/payload).
//
// Imports: none.
package wire
