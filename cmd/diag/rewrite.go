package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

// rewriteBundle writes out, a new bundle with manifest m, from every entry
// of in through filter (bundle redact, bundle anonymize): in a temporary
// file renamed into place when complete, nothing left on an error or
// Ctrl-C. It then reads out back as analyze would and removes it when
// this diag would read it as a different kind of input than before (the
// input as analyze read it; nil when analyze cannot). verb names the
// command's work in messages ("redacted", "anonymized"). ctx is not nil.
func rewriteBundle(ctx context.Context, in *bundle.Bundle, input, out string, m manifest.Manifest, force bool, filter bundle.Filter, before *snapshot.Snapshot, verb string) (*bundle.RewriteResult, error) {
	return rewriteBundleWith(ctx, in, input, out, m, force, filter, before, verb, nil)
}

// rewriteBundleWith is rewriteBundle whose companions, when not nil, is
// called once every entry is written, to give the Writer the files that are
// to take their places with the bundle (anonymize's key and map).
func rewriteBundleWith(ctx context.Context, in *bundle.Bundle, input, out string, m manifest.Manifest, force bool, filter bundle.Filter, before *snapshot.Snapshot, verb string, companions func(*bundle.Writer) error) (*bundle.RewriteResult, error) {
	w, err := bundle.Create(out, m)
	if err != nil {
		return nil, err
	}
	if !force {
		w.NoReplace()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	interrupted := func() error {
		return &exitError{code: exitInternal, err: fmt.Errorf("interrupted: %s not written", out)}
	}
	res, err := bundle.Rewrite(ctx, in, w, filter)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && companions != nil {
		err = companions(w)
	}
	if err != nil {
		w.Abort()
		if ctx.Err() != nil {
			return nil, interrupted()
		}
		return nil, err
	}
	if _, err := w.Close(); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, usageErrorf("%s was created meanwhile: not replaced (use --force to replace it)", out)
		}
		return nil, err
	}
	if before == nil {
		return res, nil
	}
	// The zip is complete. An input this diag reads as collectlogs output
	// or loose files must not become a bundle it reads as something else.
	after, err := loadBundle(out, nil)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	switch {
	case err != nil:
		removeOutput(out)
		if ctx.Err() != nil {
			return nil, interrupted()
		}
		return nil, &exitError{code: exitInternal, err: fmt.Errorf("%s: the %s bundle cannot be read back (%v); not written", out, verb, err)}
	case after.Format != before.Format:
		removeOutput(out)
		return nil, &exitError{code: exitInternal, err: fmt.Errorf("%s: this diag would read the %s bundle as a %s, not as %s like %s; not written", out, verb, after.Format, before.Format, input)}
	}
	return res, nil
}
