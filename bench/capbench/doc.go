// Command capbench is the helper of bench/capture.sh, bench/scale.sh and
// bench/perf.sh: it writes the benchmark capture, the bundle of a node in
// an N-node cluster or one node's Get-HnsEndpoint paste, measures the floors
// diag is compared with (the raw read rate of a capture; decoding a
// bundle's JSON with encoding/json), and runs a command measuring its wall
// time and peak memory. It is not part of diag.
//
// Imports: gen.
package main
