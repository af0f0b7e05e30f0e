// Package gen writes synthetic inputs of realistic shape and size for tests
// and benchmarks: a busy node's collectlogs.ps1 output, the bundle of one
// node of an N-node cluster, one node's Get-HnsEndpoint paste (Format-List
// and ConvertTo-Json), and VXLAN captures (pcap, pcapng). It imports
// nothing of diag, so any package's tests can use it.
//
// Imports: none.
package gen
