package demo

import (
	"context"

	"github.com/kfanout/fanout/debugpage"
)

// subject is the informer of one run, from either library: the same
// source, handlers and load go to each.
type subject interface {
	// addHandler registers h under name; overloaded says it is one of the
	// two handlers that fall behind (slow and stalled), which get the
	// run's overload option. The Statser reads the handler's backlog.
	addHandler(name string, h handlerFuncs, overloaded bool) (Statser, error)
	// run runs the informer until ctx is done.
	run(ctx context.Context)
	// hasSynced reports whether the informer's cache holds the first list.
	hasSynced() bool
	// showOn shows the informer on the debug page, under title, until
	// unregister is called. An informer the page cannot inspect is not
	// shown.
	showOn(page *debugpage.Page, title string) (unregister func(), err error)
}
