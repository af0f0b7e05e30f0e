package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/report"
	"github.com/wincni/diag/snapshot"
)

func newCaptureCommand(e *env, g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "capture",
		Short: "Decode overlay traffic from pcap, pcapng or pktmon ETL files, or capture it live",
		Long: `capture decodes VXLAN (UDP 4789) traffic from pcap or pcapng files written by pktmon
(etl2pcap, etl2pcapng), tcpdump or tshark, and from pktmon's ETL files, into tunnels, inner flows
and findings; convert turns a pktmon ETL file into pcapng on any OS.` + exitStatusCommon + `
  3  findings at or above --fail-on`,
		Example: `  diag capture decode node1.pcapng
  diag capture decode --bundle win-1.zip --bundle linux-1.zip capture.pcapng`,
		Args: maxArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return usageErrorf("%s needs a subcommand (see %s --help)", c.CommandPath(), c.CommandPath())
		},
	}
	c.AddCommand(newCaptureDecodeCommand(e, g), newCaptureStartCommand(e), newCaptureConvertCommand(e))
	return c
}

type captureDecodeOptions struct {
	ports   []uint
	vni     uint32
	mtu     int
	bundles []string
	reportFlags
	limits capture.Limits
}

// validate reads the flags before any capture or bundle is opened.
func (o *captureDecodeOptions) validate(c *cobra.Command) error {
	switch {
	case c.Flags().Changed("vni") && (o.vni == 0 || o.vni > 1<<24-1):
		return outOfRange(c, "vni", o.vni)
	case c.Flags().Changed("mtu") && (o.mtu < 576 || o.mtu > 65535):
		return outOfRange(c, "mtu", o.mtu)
	}
	if err := checkVXLANPorts(o.ports); err != nil {
		return err
	}
	if err := o.reportFlags.validate(true); err != nil {
		return err
	}
	return checkCaptureLimits(o.limits)
}

func newCaptureDecodeCommand(e *env, g *globalOptions) *cobra.Command {
	o := &captureDecodeOptions{}
	c := &cobra.Command{
		Use:   "decode FILE...",
		Short: "Decode VXLAN traffic in capture files into tunnels, flows and findings",
		Long: `decode reads pcap and pcapng files (the format is told by the magic number, not the name;
both byte orders, micro- and nanosecond timestamps, pcapng with several interfaces and link
types: Ethernet, raw IP, Linux cooked SLL and SLL2) and pktmon's ETL files (PktMon.etl, read
without conversion: their drops, with reasons, and components are reported too). It reports the
VXLAN tunnels, the inner flows and the findings CAP-01 to CAP-11 (diag rules CAP lists them).
Memory grows with the number of flows, not of packets.

With --bundle, the capture is judged against the bundles: the expected VNI, the nodes' VTEP
addresses (CAP-04) and their DR MACs (CAP-07), the pod subnets (CAP-01).` + exitStatusCommon + `
  3  findings at or above --fail-on (default: fail)`,
		Example: `  diag capture decode node1.pcapng
  diag capture decode --vxlan-port 8472 linux-node.pcap        # Linux flannel's default port
  diag capture decode --bundle win-1.zip --vni 4096 -o markdown capture.pcapng`,
		Args: minArgs(1, "at least one capture file"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(c); err != nil {
				return err
			}
			return runCaptureDecode(c.Context(), e, g, o, args)
		},
	}
	f := c.Flags()
	vxlanPortFlag(f, &o.ports, "VXLAN UDP port(s) besides 4789 (8472 for Linux flannel)")
	f.Uint32Var(&o.vni, "vni", 0, "the VNI the overlay uses (CAP-03); default: the bundle's")
	validValues(f, "vni", "a VXLAN network identifier, 1 to 16777215 (24 bits)")
	f.IntVar(&o.mtu, "mtu", 0, "the underlay MTU, for packets too large (CAP-05); default: the bundle's")
	validValues(f, "mtu", "an MTU in bytes, 576 to 65535 (1500 on most underlays, 1450 inside VXLAN)")
	f.StringSliceVar(&o.bundles, "bundle", nil, "bundle(s) of the nodes, to judge the capture against")
	addReportFlags(c, &o.reportFlags, true)
	addCaptureLimitFlags(f, &o.limits)
	return c
}

func runCaptureDecode(ctx context.Context, e *env, g *globalOptions, o *captureDecodeOptions, files []string) error {
	opts := capture.Options{VXLANPorts: vxlanPorts(o.ports, vxlanIANAPort), ExpectedVNI: o.vni, MTU: o.mtu, Limits: o.limits}
	var snaps []*snapshot.Snapshot
	for _, b := range o.bundles {
		s, err := loadBundle(b, nil)
		if err != nil {
			return err
		}
		snaps = append(snaps, s)
	}
	if len(snaps) > 0 {
		opts.Context = capture.ContextFromSnapshots(snaps...)
		if opts.MTU == 0 {
			opts.MTU = opts.Context.MTU
		}
	}
	// The analysis allocates per flow, not per packet, so a lazier garbage
	// collector saves a fifth of the time; the soft limit keeps a capture
	// of millions of packets in bounds and grows with the flows (a fixed
	// 48 MiB made the collector run without end at 200,000 flows).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var etlMemory int64 // pktmon ETL files hold buffers besides the flows
	for _, f := range files {
		etlMemory = max(etlMemory, capture.ETLMemory(f))
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(captureMemoryLimit(0) + etlMemory))
	opts.FlowsGrew = func(flows int) { debug.SetMemoryLimit(captureMemoryLimit(flows) + etlMemory) }
	a := capture.NewAnalyzer(opts)
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("decoding stopped after %d of %d files: %w", i, len(files), context.Cause(ctx))
		}
		if err := a.ReadFile(f); err != nil {
			return err
		}
	}
	node := files[0]
	if len(snaps) == 1 && snaps[0].NodeName() != "" {
		node = snaps[0].NodeName()
	}
	now := e.now().UTC()
	rep := report.NewCaptureReport(report.Tool{Name: "diag", Version: toolVersion()}, &now, a.Finish(node))
	if err := o.write(e, g, rep, report.TableOptions{}); err != nil {
		return err
	}
	for _, f := range rep.Findings {
		if f.Severity >= o.severity {
			return &exitError{code: exitFindings}
		}
	}
	return nil
}

type captureStartOptions struct {
	duration time.Duration
	output   string
	iface    string
	ports    []uint
	force    bool
}

// validate reads the flags before the capture starts.
func (o *captureStartOptions) validate() error {
	if o.output == "" {
		return usageErrorf("diag capture start needs --output-file FILE")
	}
	if err := refuseExisting("--output-file", o.output, o.force); err != nil {
		return err
	}
	if o.duration <= 0 {
		return usageErrorf("--duration must be positive, not %s", o.duration)
	}
	if err := checkVXLANPorts(o.ports); err != nil {
		return err
	}
	if o.iface != "" {
		if _, err := net.InterfaceByName(o.iface); err != nil {
			return usageErrorf("--interface %s: no such network interface", o.iface)
		}
	}
	return nil
}

func newCaptureStartCommand(e *env) *cobra.Command {
	o := &captureStartOptions{}
	c := &cobra.Command{
		Use:   "start",
		Short: "Capture VXLAN traffic live into a pcapng file",
		Long: `start captures VXLAN traffic for --duration and writes it to a pcapng file:
on Linux through AF_PACKET (no libpcap needed) with a kernel filter on the VXLAN ports, on Windows
by driving pktmon (a filter per port, whole packets with --pkt-size 0, stop, conversion to
pcapng). pktmon's existing filters are left alone: start refuses to run when there are some.
Ctrl-C stops early and keeps what was captured. Needs root / Administrator.` + exitStatusCommon,
		Example: `  diag capture start --duration 30s --output-file out.pcapng
  diag capture start --duration 1m --interface eth1 --vxlan-port 8472 --output-file linux.pcapng
  diag capture decode out.pcapng`,
		Args: maxArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runCaptureStart(c.Context(), e, o)
		},
	}
	f := c.Flags()
	f.DurationVar(&o.duration, "duration", 30*time.Second, "how long to capture")
	f.StringVar(&o.output, "output-file", "", "the pcapng file to write (required)")
	// -w, tcpdump's spelling, stays as a hidden alias.
	f.StringVarP(&o.output, "write", "w", "", "the same as --output-file")
	_ = f.MarkHidden("write")
	f.BoolVar(&o.force, "force", false, "replace --output-file if it exists")
	f.StringVar(&o.iface, "interface", "", "Linux: the interface to capture on (default: all)")
	vxlanPortFlag(f, &o.ports, "VXLAN UDP port(s) besides 4789")
	return c
}

func runCaptureStart(ctx context.Context, e *env, o *captureStartOptions) error {
	opts := capture.LiveOptions{Duration: o.duration, Interface: o.iface, VXLANPorts: vxlanPorts(o.ports, vxlanIANAPort)}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	// The first Ctrl-C ends the capture and keeps what it got (pktmon
	// stops and converts); a second abandons that.
	abort, abandon := context.WithCancel(context.Background())
	defer abandon()
	context.AfterFunc(ctx, func() {
		second, release := signal.NotifyContext(abort, os.Interrupt)
		context.AfterFunc(second, func() { release(); abandon() })
	})
	opts.Abort = abort
	dir := filepath.Dir(o.output)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(o.output)+".tmp-*")
	if err != nil {
		return usageErrorf("write %s: %v", o.output, err)
	}
	defer os.Remove(tmp.Name())
	fmt.Fprintf(e.stderr, "capturing VXLAN (UDP %v) for %s...\n", opts.VXLANPorts, o.duration)
	stats, err := capture.Live(ctx, opts, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, os.ErrPermission) {
		return usageErrorf("capture: %v (run as root / Administrator)", err)
	}
	if err != nil && abort.Err() != nil {
		return &exitError{code: exitInternal, err: fmt.Errorf("interrupted twice: %v; %s not written (if pktmon is still capturing: pktmon stop)", err, o.output)}
	}
	if errors.Is(err, capture.ErrLiveUnsupported) {
		return usageErrorf("capture: %v", err)
	}
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if err := os.Rename(tmp.Name(), o.output); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	_, err = fmt.Fprintf(e.stdout, "wrote %s (%s, %d packets); decode it with: diag capture decode %s\n", o.output, stats.Tool, stats.Packets, o.output)
	return err
}

// addCaptureLimitFlags gives a command the capture decoder's limits, under
// the names the decoder's notes use.
func addCaptureLimitFlags(f *pflag.FlagSet, lim *capture.Limits) {
	f.IntVar(&lim.MaxPacketSize, strings.TrimPrefix(capture.FlagMaxPacketSize, "--"), capture.DefaultMaxPacketSize,
		"skip (with a note) packets captured larger than this many bytes")
	f.IntVar(&lim.MaxInterfaces, strings.TrimPrefix(capture.FlagMaxInterfaces, "--"), capture.DefaultMaxInterfaces,
		"pcapng: skip (with a note) the interfaces of a section past this many, and their packets")
	f.IntVar(&lim.MaxFlows, strings.TrimPrefix(capture.FlagMaxFlows, "--"), capture.DefaultMaxFlows,
		"track this many inner flows one by one; count the packets of further flows together (noted)")
	f.IntVar(&lim.MaxTunnels, strings.TrimPrefix(capture.FlagMaxTunnels, "--"), capture.DefaultMaxTunnels,
		"track this many tunnels one by one; count the packets of further tunnels together (noted)")
}

func checkCaptureLimits(lim capture.Limits) error {
	for _, l := range []struct {
		flag string
		v    int
	}{{capture.FlagMaxPacketSize, lim.MaxPacketSize}, {capture.FlagMaxInterfaces, lim.MaxInterfaces},
		{capture.FlagMaxFlows, lim.MaxFlows}, {capture.FlagMaxTunnels, lim.MaxTunnels}} {
		if l.v <= 0 {
			return usageErrorf("%s must be positive, not %d", l.flag, l.v)
		}
	}
	return nil
}

// captureMemoryLimit is the soft memory limit of a capture analysis with
// this many flows: 48 MiB, and 1 KiB per flow (a flow, its table entries
// and the garbage collector's headroom take about half that).
func captureMemoryLimit(flows int) int64 {
	return 48<<20 + int64(flows)<<10
}
