// Package bundle is the diag bundle format: a zip (or a directory with the
// same layout) of raw node artifacts plus manifest.json. The writer is atomic
// and checksums every entry; the reader treats its input as hostile.
//
// Imports: manifest (what the bundle says about its collection).
package bundle
