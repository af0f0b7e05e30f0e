package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/wincni/diag/gen"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: capbench gen N FLOWS FILE | node NODES INDEX DIR | paste NODES DIR | zip DIR FILE | decode ZIP | findings REPORT | raw FILE | run CMD ARGS...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = genCapture(os.Args[2:])
	case "node":
		err = genNode(os.Args[2:])
	case "paste":
		err = genPaste(os.Args[2:])
	case "zip":
		err = zipDir(os.Args[2:])
	case "decode":
		err = decodeZip(os.Args[2])
	case "findings":
		err = findings(os.Args[2])
	case "raw":
		err = raw(os.Args[2])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capbench:", err)
		os.Exit(1)
	}
}

func genCapture(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("gen N FLOWS FILE")
	}
	n, _ := strconv.Atoi(args[0])
	flows, _ := strconv.Atoi(args[1])
	f, err := os.Create(args[2])
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := gen.WriteBenchCapture(w, n, flows); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// raw reads every packet with pcapgo and decodes nothing; prints
// "packets seconds".
func raw(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	r, err := pcapgo.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return err
	}
	n := 0
	for {
		_, _, err := r.ZeroCopyReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n++
	}
	fmt.Printf("%d %.6f\n", n, time.Since(start).Seconds())
	return nil
}

// run runs a command with its output discarded; prints "seconds maxRSS-KiB".
func run(args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	// Sample the anonymous part of the resident set (heap, stacks, runtime
	// data) apart from the file-backed part (the binary's pages), on Linux.
	var peakAnon int64
	done := make(chan struct{})
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if data, err := os.ReadFile(status); err == nil {
					for _, line := range strings.Split(string(data), "\n") {
						if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
							if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil && kb > peakAnon {
								peakAnon = kb
							}
						}
					}
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	elapsed := time.Since(start)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 3 {
			return err
		}
	}
	// seconds, peak RSS (KiB), peak anonymous RSS sampled every 2 ms (KiB)
	fmt.Printf("%.6f %d %d\n", elapsed.Seconds(), maxRSS(cmd.ProcessState), peakAnon)
	return nil
}

func genNode(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("node NODES INDEX DIR")
	}
	n, err1 := strconv.Atoi(args[0])
	i, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || n < 2 || i < 0 || i >= n {
		return fmt.Errorf("node NODES INDEX DIR: want 0 <= INDEX < NODES, NODES >= 2")
	}
	return gen.WriteClusterNode(args[2], gen.ClusterNode{Nodes: n, Index: i})
}
