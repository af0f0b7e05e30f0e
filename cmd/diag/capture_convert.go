package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/capture"
)

type captureConvertOptions struct {
	output string
	force  bool
}

// validate reads the flags before the ETL file is opened.
func (o *captureConvertOptions) validate() error {
	if o.output == "" {
		return usageErrorf("diag capture convert needs --output-file FILE")
	}
	return refuseExisting("--output-file", o.output, o.force)
}

func newCaptureConvertCommand(e *env) *cobra.Command {
	o := &captureConvertOptions{}
	c := &cobra.Command{
		Use:   "convert PktMon.etl --output-file out.pcapng",
		Short: "Convert a pktmon ETL file to pcapng, on any OS",
		Long: `convert writes the packets of a pktmon ETL file as pcapng, as pktmon etl2pcap and
etl2pcapng do on Windows, without Windows: one packet per packet event (seen and dropped), on one
interface per pktmon component (named after it), with the captured and original lengths as logged
and the event's time to 100 ns. Each packet's comment names its component and direction; a dropped
packet's says "drop: <reason> at <location>" (the reason names come from the file itself).
PktGroupId becomes the pcapng packet id. Wireshark and tshark open the result.` + exitStatusCommon,
		Example: `  diag capture convert PktMon.etl --output-file pktmon.pcapng
  tshark -r pktmon.pcapng -Y 'frame.comment contains "drop"'`,
		Args: func(c *cobra.Command, args []string) error { return exactlyOne(c, args, "one pktmon ETL file") },
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runCaptureConvert(c.Context(), e, o, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.output, "output-file", "", "the pcapng file to write (required)")
	f.BoolVar(&o.force, "force", false, "replace --output-file if it exists")
	return c
}

func runCaptureConvert(ctx context.Context, e *env, o *captureConvertOptions, in string) error {
	st, err := capture.ConvertETLFile(ctx, in, o.output, "diag "+toolVersion())
	if err != nil {
		return err
	}
	for _, n := range st.Notes {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
	_, err = fmt.Fprintf(e.stdout, "wrote %s: %d packets (%d dropped) on %d interfaces\n", o.output, st.Packets, st.Drops, st.Interfaces)
	return err
}
