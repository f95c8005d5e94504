// Package testutil holds helpers shared by fanout's tests, in every module
// of the repository. Nothing outside tests imports it.
package testutil

import "context"

// Start calls run on a new goroutine with a context derived from ctx and
// returns stop, which cancels that context and waits for run to return:
// the "start it, return stop" every test of a Run method needs.
func Start(ctx context.Context, run func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
