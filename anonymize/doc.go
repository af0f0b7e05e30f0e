// Package anonymize replaces the addresses, MACs and names of a bundle with
// keyed pseudonyms that keep what the analysis compares: subnets still
// contain their addresses (prefix-preserving), private stays private,
// APIPA stays APIPA, a MAC made from an address still names the mapped
// address, and a name is the same pseudonym everywhere it appears. It
// works on the raw artifacts (text of any format, packet captures), so
// that diag analyze reads an anonymized bundle as it read the original.
//
// Imports: bundle, capture/payload (the walk of capture files and of packets
// down their tunnels, and the checksums), manifest, ownerfile (the key,
// readable by its owner only), snapshot.
package anonymize
