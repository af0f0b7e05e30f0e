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
// The walk of a capture file (the gzip envelope, bounded; classic pcap
// records; pcapng blocks in their section's byte order), the walk of a
// packet's layers and tunnels (Walker, which keeps the checksums right
// over what its Visitor changes) and the checksum arithmetic live here
// once, for this clearing and for anonymize's mapping of the addresses in
// packets.
//
// Imports: capture/wire (the wire formats' numbers, the tunnel of a datagram).
package payload
