// Package catalog is the one list of diag's rules: every rule, whether the
// analyzers run it on bundles, the capture decoder on packets, or no input
// can reveal it, declares itself here once, with what it checks, why, the
// fix, the upstream behaviour it is grounded in, its false-positive guards
// and the file it lives in. diag rules, docs/rules.md, --rules selection
// and the reports' "About" text read it.
//
// Imports: finding (for Severity). analyzers and capture import catalog.
package catalog
