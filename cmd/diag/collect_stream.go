package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wincni/diag/cluster"
)

// streamBundle writes a collected bundle to w in cluster's framing.
func streamBundle(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := cluster.WriteStream(w, f); err != nil {
		return fmt.Errorf("stream %s: %w", path, err)
	}
	return nil
}
