package informer

import (
	"testing"

	"github.com/kfanout/fanout/internal/features"
)

// listAndWatchOnly turns the WatchListClient gate off for the rest of t,
// for a test whose ListerWatcher double serves lists and plain watches but
// not the streamed initial list (a watch that never sends the
// initial-events-end bookmark), as a server without watch-list would.
// Reflectors read the gate when they are built.
func listAndWatchOnly(t *testing.T) {
	t.Helper()
	t.Cleanup(features.SetForTesting(features.WatchListClient, false))
}
