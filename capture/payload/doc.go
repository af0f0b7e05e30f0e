// Package payload clears what packets carry in a capture before it leaves
// the node: the application payload of every TCP and UDP segment (a
// bearer token sent in clear, a password typed into a plain-text
// protocol) is overwritten with zeros of the same length. What the
// capture rules read stays: every header, every length, the tunnels
// (VXLAN, Geneve, VXLAN-GPE, GRE, IP in IP) walked down to the innermost
// transport, DNS on port 53, and ICMP (whose payload quotes a header).
// Checksums are updated for the change (RFC 1624), so that a checksum
// that was right stays right and one that was wrong stays wrong by the
// same amount.
//
// Imports: none.
package payload
