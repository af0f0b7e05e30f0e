// compare-tshark decodes capture files with tshark and with diag and
// compares what they see of the tunnels: the VXLAN packets, the VNIs, the
// VTEP pairs, the inner flows, the inner packets with bad checksums and
// the Geneve packets.
//
//	go run ./tools/compare-tshark [-diag bin/diag] [-vxlan-port 8472] FILE|DIR...
//
// Directories are searched for *.pcap, *.pcapng, *.pcap.gz and *.pcapng.gz.
// It prints one row per file and figure and exits 1 when a figure differs
// where no documented deliberate difference (docs/capture-vs-tshark.md)
// explains it. Without tshark it says so and exits 0.
//
// Imports: none.
package main
