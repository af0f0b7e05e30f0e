package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/anonymize"
	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/capture/payload"
	"github.com/wincni/diag/ownerfile"
	"github.com/wincni/diag/redact"
)

type anonymizeOptions struct {
	output    string
	outputOld string // -o/--output: the old spelling of --output-file
	keyFile   string
	writeMap  bool
	force     bool
	ports     []uint
	keywords  []string
	kwFile    string
	keepPay   bool // --keep-payloads

	out string // the output validate chose
}

// validate reads the flags before the input or the key is opened.
func (o *anonymizeOptions) validate(c *cobra.Command, input string) error {
	if err := checkOutputFileFlags(c, &o.output, &o.outputOld); err != nil {
		return err
	}
	if err := checkVXLANPorts(o.ports); err != nil {
		return err
	}
	var err error
	o.out, err = rewriteOutput(input, o.output, "-anonymized.zip", o.force)
	return err
}

func newBundleAnonymizeCommand(e *env) *cobra.Command {
	var o anonymizeOptions
	c := &cobra.Command{
		Use:   "anonymize INPUT",
		Short: "Write a copy of a bundle with secrets removed and addresses, MACs and names replaced, for a public ticket",
		Long: `anonymize does what diag bundle redact does (secrets removed, every input kind read, a fresh
manifest) and replaces the customer's topology with keyed pseudonyms that keep what the analysis
compares:

  IP addresses   prefix-preserving (Crypto-PAn): addresses that share a prefix still share it, so
                 subnets, RemoteSubnetRoutes, ProviderAddresses and cluster CIDRs still line up; a
                 private address stays private, APIPA stays APIPA, loopback, multicast, netmasks,
                 0.0.0.0/0 and the Vagrant NAT network are kept; the last octet (IPv6: the last 16
                 bits) is kept, so a subnet's .0, .1 and .10 stay where rules look for them.
  MACs           the vendor part is kept, the rest replaced; a MAC made from an address (flannel's
                 0E-2A-<VTEP>, Docker's 02-42-<IP>) names the replaced address.
  Names          the node's host and domain names, every Kubernetes Node, and the namespaces and
                 names of Services outside the cluster's own (kube-system...), in text and file names.
                 A host or domain name too short or too common to replace in free text (vm, master)
                 is replaced where a field states it (Hostname, nodeName, --hostname-override,
                 Host Name . . . :) and named on stderr and in the manifest as kept in free text.
  Keywords       --keywords and --keyword-file (one a line, # comments): customer and project
                 names that only free text carries, replaced in any case, inside longer words too.
  Captures       pcap and pcapng, outer and inner (VXLAN, Geneve) headers, ARP, the headers ICMP
                 errors quote; checksums moved by the same difference (a bad one stays bad); VNIs and
                 ports kept. The payload of every TCP and UDP packet is cleared as bundle redact
                 clears it (--keep-payloads keeps it); addresses inside DNS answers and neighbour
                 discovery stay.

diag analyze gives the same findings (rule IDs, severities, counts) on the output as on the input.
The same key maps the same way in every bundle, so anonymize the bundles of several nodes, or the
before and after of one node, with one --key-file to analyze them together or diff them. Without
--key-file a random key is written to <OUTPUT>.key (readable by you only) and named on stderr; keep
it private, it undoes nothing by itself but links pseudonyms across bundles. The manifest records
that the bundle was anonymized and the key's ID, never the key. --write-map writes
<OUTPUT>.map.json (original -> pseudonym, readable by you only) for reading the findings back.

The output defaults to <INPUT name>-anonymized.zip beside the input.` + exitStatusCommon,
		Example: `  diag bundle anonymize diag-win-1-20261122T0500Z.zip        # writes ...-anonymized.zip and its .key
  diag bundle anonymize node1.zip --key-file team.key --output-file node1-anon.zip
  diag bundle anonymize node2.zip --key-file team.key --output-file node2-anon.zip --write-map
  diag bundle anonymize node.zip --keywords contoso,projectx --keyword-file customers.txt`,
		Args: func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "the input to anonymize") },
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(c, args[0]); err != nil {
				return err
			}
			return runBundleAnonymize(c.Context(), e, o, args[0])
		},
	}
	f := c.Flags()
	outputFileFlag(c, &o.output, &o.outputOld, "bundle zip to write (default <INPUT name>-anonymized.zip beside the input)")
	f.StringVar(&o.keyFile, "key-file", "", "the key to use (64 hex digits); default: a new key written to <OUTPUT>.key")
	f.BoolVar(&o.writeMap, "write-map", false, "also write <OUTPUT>.map.json, original -> pseudonym, for your eyes only")
	f.BoolVar(&o.force, "force", false, "replace the output if it exists")
	f.StringSliceVar(&o.keywords, "keywords", nil, "words to replace wherever they appear, e.g. customer and project names (comma-separated)")
	f.StringVar(&o.kwFile, "keyword-file", "", "a file of words to replace, one a line (# starts a comment)")
	f.BoolVar(&o.keepPay, "keep-payloads", false, "keep the payload of the captures' packets (then it is yours to check before you attach)")
	vxlanPortFlag(f, &o.ports, "VXLAN UDP port(s) of the captures besides 4789 and 8472, so that their inner frames are rewritten too")
	return c
}

func runBundleAnonymize(ctx context.Context, e *env, o anonymizeOptions, input string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	out := o.out
	var key anonymize.Key
	keyPath := o.keyFile
	if keyPath != "" {
		k, err := anonymize.ReadKeyFile(keyPath)
		if err != nil {
			return usageErrorf("--key-file: %v", err)
		}
		key = k
	} else {
		keyPath = out + ".key"
		if _, err := os.Lstat(keyPath); err == nil && !o.force {
			return usageErrorf("%s exists: give it with --key-file to reuse it, or --force to replace it", keyPath)
		}
		k, err := anonymize.NewKey()
		if err != nil {
			return err
		}
		key = k
	}

	in, err := bundle.Open(input, bundle.DefaultLimits)
	if err != nil {
		return err
	}
	defer in.Close()
	before, err := loadBundle(input, nil)
	if err != nil {
		// Names are learnt from what analyze reads: without it only
		// addresses and MACs would be replaced, and names would leak.
		return err
	}
	a := anonymize.New(key)
	for _, p := range o.ports {
		a.AddVXLANPort(uint16(p))
	}
	if err := addKeywords(a, o); err != nil {
		return err
	}
	a.AddSnapshotNames(before)
	if err := harvestNames(ctx, a, in); err != nil {
		return err
	}
	kept := keptNames(a.Kept())

	m := redactManifest(in, before, input)
	delete(m.Options, "redact.source") // the input's file name may name the node or the customer
	a.Manifest(&m)
	m.Options["anonymize"] = "addresses prefix-preserving (Crypto-PAn), MACs, names"
	if n := len(a.Mapping().Keywords); n > 0 {
		m.Options["anonymize"] += fmt.Sprintf(", %d keywords", n)
	}
	if kept != "" {
		m.Options["anonymize.names-kept-in-text"] = kept + " (replaced only where a field states them)"
	}
	m.Options["anonymize.key-id"] = key.ID()
	// The key and the map take their places with the bundle, all or none:
	// never a bundle beside another run's key or map (a map that is not
	// rewritten goes with the bundle it was of).
	_, err = os.Lstat(out + ".map.json")
	staleMap := o.force && !o.writeMap && err == nil
	companions := func(w *bundle.Writer) error {
		if o.keyFile == "" {
			if err := writeCompanion(w, out, ".key", func(f io.Writer) error { return anonymize.WriteKey(f, key) }); err != nil {
				return fmt.Errorf("write the key: %w", err)
			}
		}
		if o.writeMap {
			if err := writeCompanion(w, out, ".map.json", func(f io.Writer) error { return anonymize.WriteMapping(f, a.Mapping()) }); err != nil {
				return fmt.Errorf("write the map: %w", err)
			}
		} else if staleMap {
			w.Companion(".map.json", "")
		}
		return nil
	}
	filter := a.Filter(redact.Entry)
	if !o.keepPay {
		filter = redact.ClearPayloads(filter, vxlanPorts(o.ports)...)
	}
	res, err := rewriteBundleWith(ctx, in, input, out, m, o.force, filter, before, "anonymized", companions)
	if err != nil {
		return err
	}
	mp := a.Mapping()
	if o.writeMap {
		fmt.Fprintf(e.stderr, "bundle anonymize: the mapping is in %s.map.json: keep it private\n", out)
	}
	if staleMap {
		fmt.Fprintf(e.stderr, "bundle anonymize: removed %s.map.json, the replaced bundle's mapping (--write-map writes this one's)\n", out)
	}
	for _, om := range res.Omitted {
		fmt.Fprintf(e.stderr, "bundle anonymize: %s: %s\n", om.Path, om.Reason)
	}
	keptNote := ""
	if kept != "" {
		keptNote = "; KEPT in free text, replaced only where a field states them: " + kept + " (look for them before you attach)"
	}
	fmt.Fprintf(e.stderr, "bundle anonymize: wrote %s: %d files; replaced %d addresses, %d MACs, %d names, %d keywords; key %s (ID %s)%s%s\n",
		out, len(res.Files), len(mp.Addresses), len(mp.MACs), len(mp.Names), len(mp.Keywords), filepath.Clean(keyPath), key.ID(), payloadNote(res, o.keepPay), keptNote)
	fmt.Fprintln(e.stdout, out)
	return nil
}

// writeCompanion writes what fill writes to a new owner-only file beside
// out and hands it to w, to be put at out+suffix with the bundle.
func writeCompanion(w *bundle.Writer, out, suffix string, fill func(io.Writer) error) error {
	f, err := ownerfile.CreateTemp(out + suffix)
	if err != nil {
		return err
	}
	w.Companion(suffix, f.Name())
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out+suffix, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out+suffix, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out+suffix, err)
	}
	return nil
}

// addKeywords registers --keywords and the words of --keyword-file.
func addKeywords(a *anonymize.Anonymizer, o anonymizeOptions) error {
	for _, k := range o.keywords {
		if strings.TrimSpace(k) == "" {
			continue
		}
		if err := a.AddKeyword(k); err != nil {
			return usageErrorf("--keywords: %v", err)
		}
	}
	if o.kwFile == "" {
		return nil
	}
	data, err := os.ReadFile(o.kwFile)
	if err != nil {
		return usageErrorf("--keyword-file %s: %v", o.kwFile, err)
	}
	if len(data) > maxKeywordFile {
		return usageErrorf("--keyword-file %s: over %d KiB; a keyword file is a list of words", o.kwFile, maxKeywordFile>>10)
	}
	for i, l := range strings.Split(string(redact.Decode(data)), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(l, "\ufeff"))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if err := a.AddKeyword(l); err != nil {
			return usageErrorf("--keyword-file %s:%d: %v", o.kwFile, i+1, err)
		}
	}
	return nil
}

// maxKeywordFile bounds --keyword-file.
const maxKeywordFile = 1 << 20

// keptNames is the names left in free text, for the summary and the
// manifest: "vm (host, 2 characters), master (host, a word ...)".
func keptNames(kept []anonymize.KeptName) string {
	var parts []string
	for _, k := range kept {
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", k.Name, k.Kind, k.Reason))
	}
	return strings.Join(parts, ", ")
}

// harvestNames reads every text entry once before anything is written,
// for the host, domain and user names it states (ipconfig /all,
// systeminfo, profile paths): a name found in the last file must be
// replaced in the first one too. Entries over redact.MaxEntry
// are left out of the rewrite anyway.
func harvestNames(ctx context.Context, a *anonymize.Anonymizer, in *bundle.Bundle) error {
	for _, name := range in.Names() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == bundle.ManifestPath || in.Size(name) > redact.MaxEntry {
			continue
		}
		rc, err := in.Open(name)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(rc, redact.MaxEntry+1))
		rc.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if payload.IsCapture(data) {
			continue
		}
		a.HarvestText(redact.Decode(data))
		a.HarvestText([]byte(name)) // a collectlogs file named after a user's profile path
	}
	return nil
}
