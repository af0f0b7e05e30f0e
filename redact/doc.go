// Package redact removes secrets from the text files that go into a bundle, in
// diag collect, diag bundle redact and anonymize, and diag monitor alike:
// kubeconfig tokens and client keys, private keys (PEM, PGP, PuTTY, OpenSSH,
// base64-encoded PEM in Kubernetes secrets, PEM bodies whose BEGIN line a log
// tail cut off), bearer and other Authorization credentials, cookies,
// passwords in command lines (Unix and Windows styles, secret-taking flags,
// archivers' -p switches), JSON, YAML (block scalars too), INI, TOML, XML
// (unattend.xml's elements over several lines), "key value" files, PowerShell
// (-Name X -Value Y, Name/Value tables), reg query and reg add, registry
// credentials (docker config.json, containerd), connection strings, cloud
// credentials, tokens known by their shape (GitHub, GitLab, Slack, Docker Hub,
// ...) and random words right after a secret word. UTF-16 text (with a byte
// order mark or without) is decoded first (Decode). It never removes IP
// addresses, MACs, GUIDs, digests, public certificates or host names: for a
// networking tool they are the evidence. What it removed is reported as counts
// per kind, never as values.
//
// Redaction works line by line with a little state for the constructs that
// span lines (key blocks, YAML block scalars, env name/value pairs), so it
// streams: Writer and Copy hold one line (at most MaxLine bytes) and at most
// maxRun bytes of base64 lines that may turn out to be a key body, whatever
// the size of the input.
//
// Entry is the bundle.Filter of diag bundle redact: text redacted, binary
// data left out, captures kept; ClearPayloads wraps a filter to clear the
// application payload of the captures it keeps.
//
// Imports: bundle (the entries it rewrites), capture/payload (captures
// recognised and their payloads cleared), manifest (what was removed).
package redact
