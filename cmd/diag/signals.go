package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a collection early, like Ctrl-C: the bundle holds what was
// collected so far and the staging directory is removed. SIGTERM is a pod
// being deleted or a service stopped (on Windows, Go delivers the console's
// close, logoff and shutdown events as SIGTERM); SIGHUP a dropped SSH session.
// A signal the process was started ignoring stays ignored: under nohup a
// hangup does not end the collection (Notify would stop ignoring it).
func stopSignals() []os.Signal {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// stopOnSignals is ctx, ended by the first of stopSignals; stop releases
// them. With none to catch, ctx is returned as it is (NotifyContext with
// no signal would catch every one).
func stopOnSignals(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	sigs := stopSignals()
	if len(sigs) == 0 {
		return ctx, func() {}
	}
	return signal.NotifyContext(ctx, sigs...)
}
