// Package capture reads pcap and pcapng files and pktmon's ETL files
// (through capture/etl), decodes VXLAN and Geneve overlay traffic with a
// fixed-header fast path, keeps per-tunnel and per-flow state, and turns
// what it sees into findings (the CAP rules, declared in the catalog).
// Memory grows with the number of flows, never with the number of packets.
// It also converts ETL files to pcapng and captures live (AF_PACKET,
// pktmon).
//
// Imports: bundle, capture/etl (pktmon's ETL files), catalog, finding,
// capture/wire (the wire formats' numbers, the tunnel of a datagram),
// hostexec (pktmon run), snapshot.
package capture
