// Package standintest installs the stand-ins of the node's tools
// (tools/wine/standin) for a test: built for this platform, or taken from
// DIAG_STANDIN_BIN where make test-windows built them for Windows (a test
// binary under Wine has no Go to build with), put first on PATH under the
// names diag runs, each doing what the test's rules say.
//
// Imports: none.
package standintest
