// Package manifest is what a bundle says about its collection: the node and
// its OS, the tool and when it ran, how each collector fared, and each file's
// size, checksum and redactions. The bundle writes and reads it; the
// snapshot carries it, so a report can say what was collected and how,
// without the model depending on the container.
//
// Imports: none.
package manifest
