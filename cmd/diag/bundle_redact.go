package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/redact"
	"github.com/wincni/diag/snapshot"
)

type redactOptions struct {
	output    string
	outputOld string // -o/--output: the old spelling of --output-file
	force     bool
	keepPay   bool   // --keep-payloads
	ports     []uint // --vxlan-port

	out string // the output validate chose
}

// validate reads the flags before the input is opened.
func (o *redactOptions) validate(c *cobra.Command, input string) error {
	if err := checkOutputFileFlags(c, &o.output, &o.outputOld); err != nil {
		return err
	}
	if err := checkVXLANPorts(o.ports); err != nil {
		return err
	}
	var err error
	o.out, err = rewriteOutput(input, o.output, "-redacted.zip", o.force)
	return err
}

func newBundleRedactCommand(e *env) *cobra.Command {
	var o redactOptions
	c := &cobra.Command{
		Use:   "redact INPUT",
		Short: "Write a copy of a bundle with secrets removed, e.g. before attaching it to a public ticket",
		Long: `redact reads anything diag analyze reads as a bundle (a diag bundle zip or directory, from
any diag version; a collectlogs.ps1 folder or zip; a directory of files) and writes a new diag
bundle zip with the same redaction diag collect applies: tokens, private keys, passwords and cloud
credentials are replaced by REDACTED in every text file, found by where they stand (keys, columns,
reg query, command-line flags, XML elements, URLs) and by their shape (provider tokens); IP
addresses, MACs and names are kept, they are the evidence. UTF-16 text, with a byte order mark or
without (cmd /u), is redacted as text and stored as UTF-8. A packet capture (pcap, pcapng, gzip'd too) is
kept with its headers, lengths and checksums, which the capture rules read, and the payload of
every TCP and UDP packet cleared (zeros of the same length, checksums updated so that a right one
stays right and a wrong one wrong; tunnels are followed to the innermost packet; DNS on port 53 and
ICMP are kept): a token sent in clear does not go with the bundle. --keep-payloads keeps the
payloads: they are then yours to check. Other binary or compressed files (ETL traces, nested zips)
are left out, since they cannot be redacted, and each is named on stderr.

The new bundle has a fresh manifest.json: this diag's version, the input's file name, the input
manifest's node, times and collector results (their messages redacted too), and per file its
size, SHA-256 and the kinds and counts of what was removed, never the values. The sidecar
<OUTPUT>.sha256 is written beside it, and diag bundle verify checks both.

The output defaults to <INPUT name>-redacted.zip beside the input (a folder "logs" gives
logs-redacted.zip next to it). An existing output is not replaced without --force. The zip is
written to a temporary file in the output's directory and renamed into place when complete;
on an error or Ctrl-C nothing is left behind. Before it keeps the output, redact reads it back
as analyze would and refuses it when this diag would read it as a different kind of input than
the original (the output is then removed).

A one-line summary goes to stderr, the output's path to stdout.` + exitStatusCommon,
		Example: `  diag bundle redact diag-win-1-20261122T0500Z.zip    # writes diag-win-1-20261122T0500Z-redacted.zip
  diag bundle redact ./collectlogs-output --output-file ticket-4711.zip
  diag bundle redact aks-node_logs.zip --output-file out.zip --force`,
		Args: func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "the input to redact") },
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(c, args[0]); err != nil {
				return err
			}
			return runBundleRedact(c.Context(), e, o, args[0])
		},
	}
	f := c.Flags()
	outputFileFlag(c, &o.output, &o.outputOld, "bundle zip to write (default <INPUT name>-redacted.zip beside the input)")
	f.BoolVar(&o.force, "force", false, "replace the output if it exists")
	f.BoolVar(&o.keepPay, "keep-payloads", false, "keep the payload of the captures' packets (then it is yours to check before you attach)")
	vxlanPortFlag(f, &o.ports, "VXLAN UDP port(s) of the captures besides 4789 and 8472, so that their inner packets keep their headers")
	return c
}

func runBundleRedact(ctx context.Context, e *env, o redactOptions, input string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	out := o.out

	in, err := bundle.Open(input, bundle.DefaultLimits)
	if err != nil {
		return err
	}
	defer in.Close()
	// How analyze reads the input: to name the node in the manifest when
	// the input has no manifest, and to check the output against. An input
	// analyze cannot parse is still redacted.
	before, _ := loadBundle(input, nil)

	m := redactManifest(in, before, input)
	filter := redact.Entry
	if !o.keepPay {
		filter = redact.ClearPayloads(filter, vxlanPorts(o.ports)...)
	}
	res, err := rewriteBundle(ctx, in, input, out, m, o.force, filter, before, "redacted")
	if err != nil {
		return err
	}

	for _, om := range res.Omitted {
		fmt.Fprintf(e.stderr, "bundle redact: %s: %s\n", om.Path, om.Reason)
	}
	fmt.Fprintln(e.stderr, redactSummary(out, res)+payloadNote(res, o.keepPay))
	fmt.Fprintln(e.stdout, out)
	return nil
}

// outputBeside is --output-file, else <input name><suffix> beside the
// input ("-redacted.zip": a folder "logs" gives logs-redacted.zip).
func outputBeside(input, output, suffix string) (string, error) {
	if output != "" {
		return output, nil
	}
	abs, err := filepath.Abs(input)
	if err != nil {
		return "", usageErrorf("%s: %v", input, err)
	}
	base := filepath.Base(abs)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".zip") {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == string(filepath.Separator) || base == "." {
		base = "bundle"
	}
	return filepath.Join(filepath.Dir(abs), base+suffix), nil
}

// rewriteOutput is the output of bundle redact or anonymize: --output-file,
// else the input's name with suffix beside it; refused as checkRedactOutput
// says.
func rewriteOutput(input, output, suffix string, force bool) (string, error) {
	out, err := outputBeside(input, output, suffix)
	if err != nil {
		return "", err
	}
	return out, checkRedactOutput(input, out, force)
}

// checkRedactOutput refuses, before any work, an output that exists (without
// --force), that is the input, or whose directory does not exist.
func checkRedactOutput(input, out string, force bool) error {
	dir := filepath.Dir(out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("--output %s: directory %s does not exist", out, dir)
	}
	fo, err := os.Lstat(out)
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(input); err == nil && os.SameFile(fi, fo) {
		return usageErrorf("--output %s is the input: write the redacted bundle elsewhere", out)
	}
	if fo.IsDir() {
		return usageErrorf("--output %s is a directory", out)
	}
	if !force {
		return usageErrorf("%s exists: not replaced (use --force to replace it)", out)
	}
	return nil
}

func removeOutput(out string) {
	os.Remove(out)
	os.Remove(out + ".sha256")
}

// redactManifest is the output's manifest: this diag as the tool, the
// input's collection facts (node, OS, times, collectors) with their free
// text redacted, and where it came from (the input's file name only: its
// full path may name a customer or a user).
func redactManifest(in *bundle.Bundle, s *snapshot.Snapshot, input string) manifest.Manifest {
	m := manifest.Manifest{Tool: &manifest.ToolInfo{Name: "diag", Version: toolVersion()}, Options: map[string]string{}}
	if old := in.Manifest; old != nil {
		m.Node, m.OS, m.Started, m.Finished = old.Node, old.OS, old.Started, old.Finished
		m.Description = redactString(old.Description)
		for k, v := range old.Options {
			m.Options[k] = redactString(v)
		}
		for _, c := range old.Collectors {
			c.Error = redactString(c.Error)
			c.Files = append([]string(nil), c.Files...)
			m.Collectors = append(m.Collectors, c)
		}
		if old.Tool != nil {
			m.Options["redact.source-tool"] = old.Tool.Name + " " + old.Tool.Version
		}
	}
	if m.Node == "" && s != nil {
		m.Node = s.NodeName()
	}
	abs, err := filepath.Abs(input)
	if err != nil {
		abs = input
	}
	m.Options["redact.source"] = filepath.Base(abs)
	m.Options["redact.source-kind"] = in.Kind()
	if s != nil {
		m.Options["redact.source-format"] = s.Format
	}
	return m
}

func redactString(s string) string {
	if s == "" {
		return s
	}
	clean, _, err := redact.File([]byte(s))
	if err != nil {
		return ""
	}
	return string(clean)
}

// redactSummary is the one line on stderr: files written, left out, and
// what was removed by kind.
func redactSummary(out string, res *bundle.RewriteResult) string {
	withSecrets := 0
	for _, f := range res.Files {
		for _, r := range f.Redacted {
			if r.Kind != redact.KindPayload {
				withSecrets++
				break
			}
		}
	}
	s := fmt.Sprintf("bundle redact: wrote %s: %d files (%d with secrets removed)", out, len(res.Files), withSecrets)
	if len(res.Omitted) > 0 {
		s += fmt.Sprintf(", %d left out", len(res.Omitted))
	}
	var kinds []string
	for _, r := range res.Redacted {
		if r.Kind != redact.KindPayload { // payloadNote says it
			kinds = append(kinds, fmt.Sprintf("%d %s", r.Count, r.Kind))
		}
	}
	if len(kinds) == 0 {
		return s + "; nothing redacted"
	}
	return s + "; redacted " + strings.Join(kinds, ", ")
}

// payloadNote is the summary's word on the captures' packet payloads:
// how many bytes were cleared in how many captures, or that they were
// kept on request.
func payloadNote(res *bundle.RewriteResult, kept bool) string {
	if kept {
		return "; packet payloads of captures KEPT (--keep-payloads): check them before you attach"
	}
	var bytes, captures int
	for _, f := range res.Files {
		for _, r := range f.Redacted {
			if r.Kind == redact.KindPayload {
				bytes += r.Count
				captures++
			}
		}
	}
	if captures == 0 {
		return ""
	}
	unit := "captures"
	if captures == 1 {
		unit = "capture"
	}
	return fmt.Sprintf("; cleared %d bytes of packet payload in %d %s", bytes, captures, unit)
}
