package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/gen"
)

// genPaste writes one node's Get-HnsEndpoint output of an N-node cluster
// as Format-List text and as JSON (gen.WriteEndpointPaste).
func genPaste(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("paste NODES DIR")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("paste NODES DIR: want NODES >= 1")
	}
	return gen.WriteEndpointPaste(args[1], gen.EndpointPaste{Nodes: n})
}

// zipDir writes the files under dir into a zip, as a bundle is shipped.
func zipDir(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("zip DIR FILE")
	}
	dir := args[0]
	f, err := os.Create(args[1])
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(w, in)
		return err
	})
	if err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// decodeZip decodes every .json entry of a zip into generic values with
// encoding/json and discards them: the floor analyzing a bundle is
// measured against. It prints the entries decoded and their bytes.
func decodeZip(path string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer z.Close()
	n, size := 0, uint64(0)
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		var v any
		err = json.NewDecoder(r).Decode(&v)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		n++
		size += f.UncompressedSize64
	}
	fmt.Println(n, size)
	return nil
}

// findings prints the ID and severity of each finding of a diag analyze
// -o json report, sorted: two reports of the same objects must agree.
func findings(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep struct {
		Findings []struct{ ID, Severity string }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.ID+" "+f.Severity)
	}
	slices.Sort(out)
	fmt.Println(strings.Join(out, "\n"))
	return nil
}
