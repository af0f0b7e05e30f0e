// Package report renders the analyze, diff and capture reports as a
// terminal table, Markdown, JSON and one self-contained HTML page. A
// renderer takes a report and a writer; it never decides about colour or
// terminal size itself: the command line tells it.
//
// Imports: capture, catalog, diff, finding, manifest (collector statuses),
// snapshot.
package report
