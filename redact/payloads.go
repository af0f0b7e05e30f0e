package redact

import (
	"fmt"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/capture/payload"
	"github.com/wincni/diag/manifest"
)

// KindPayload marks, among what was removed from a file, the bytes of
// packet payload cleared in a capture (a count of bytes, not of values).
const KindPayload = "capture-payload-bytes"

// ClearPayloads wraps the filter of diag bundle redact or anonymize: a
// packet capture it keeps (whole, or with its headers anonymized) has the
// payload of its TCP and UDP packets cleared (capture/payload), where a
// token or a password sent in clear would otherwise go with the bundle.
// The headers, lengths and checksums the capture rules read stay. A
// capture that cannot be read to its end, or is too large to be read at
// once, is left out rather than carried with its payload. vxlanPorts are
// VXLAN ports besides 4789 and 8472.
func ClearPayloads(f bundle.Filter, vxlanPorts ...uint16) bundle.Filter {
	return func(e *bundle.RewriteEntry) (bundle.Outcome, error) {
		out, err := f(e)
		if err != nil || !payload.IsCapture(e.Head) {
			return out, err
		}
		var data []byte
		switch out.Action {
		case bundle.Copy:
			if e.Size > payload.MaxCapture {
				return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("capture of %d MiB, over the %d MiB whose packet payloads can be cleared at once, left out", e.Size>>20, payload.MaxCapture>>20)}, nil
			}
			if data, err = e.ReadAll(); err != nil {
				return bundle.Outcome{}, err
			}
		case bundle.Replace:
			data = out.Data
		default:
			return out, nil
		}
		clean, n, err := payload.Clear(data, vxlanPorts...)
		if err != nil {
			return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("capture that cannot be read to the end (%v), left out (its packet payloads could not be cleared)", err)}, nil
		}
		out.Action, out.Data = bundle.Replace, clean
		if n > 0 {
			out.Redacted = append(out.Redacted, manifest.Redaction{Kind: KindPayload, Count: int(n)})
		}
		return out, nil
	}
}
