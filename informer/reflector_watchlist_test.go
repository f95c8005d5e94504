package informer

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/features"
)

// transformingStore counts the transformer's calls.
type transformingStore struct {
	recordingStore
	calls int
}

// Replace records the items sorted: a watch-list's temporary store lists
// them in no particular order.
func (s *transformingStore) Replace(items []any, rv string) error {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b any) int { return strings.Compare(describeObj(a), describeObj(b)) })
	return s.recordingStore.Replace(sorted, rv)
}

func (s *transformingStore) Transformer() TransformFunc {
	return func(obj any) (any, error) {
		s.mu.Lock()
		s.calls++
		s.mu.Unlock()
		return obj, nil
	}
}

func TestReflectorWatchListStreamsInitialState(t *testing.T) {
	defer features.SetForTesting(features.WatchListClient, true)()
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.SetWatchListSupported(true)
		src.Add(testPodNamed("a"))
		src.Add(testPodNamed("b"))
		store := &transformingStore{}
		r := newTestReflector(src, store, ReflectorOptions{})
		stop := runReflector(t, r)
		equalLines(t, "calls", src.CallStrings(), []string{`watch rv="" match=NotOlderThan initial-events bookmarks`})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1 b@2] rv=2"})
		if store.calls != 2 {
			t.Fatalf("transformer ran %d times in the temporary store, want 2", store.calls)
		}
		if got := r.LastSyncResourceVersion(); got != "2" {
			t.Fatalf("LastSyncResourceVersion = %q, want 2", got)
		}
		// The same watch goes on.
		src.Add(testPodNamed("c"))
		synctest.Wait()
		equalLines(t, "store", store.takeOps(), []string{"add c@3"})
		if n := len(src.Calls()); n != 1 {
			t.Fatalf("%d calls, want the one watch-list watch", n)
		}
		stop()
	})
}

func TestReflectorWatchListRetriesRetriableAndExpired(t *testing.T) {
	defer features.SetForTesting(features.WatchListClient, true)()
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.SetWatchListSupported(true)
		src.Add(testPodNamed("a"))
		src.FailWatch(apierrors.NewTooManyRequests("slow down", 1), apierrors.NewResourceExpired("too old"))
		store := &transformingStore{}
		stop := runReflector(t, newTestReflector(src, store, ReflectorOptions{}))
		time.Sleep(2 * time.Second) // the 429 backs off
		synctest.Wait()
		equalLines(t, "calls", src.CallStrings(), []string{
			`watch rv="" match=NotOlderThan initial-events bookmarks`,
			`watch rv="" match=NotOlderThan initial-events bookmarks`,
			`watch rv="" match=NotOlderThan initial-events bookmarks`,
		})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1] rv=1"})
		stop()
	})
}

func TestReflectorWatchListFallsBackToList(t *testing.T) {
	defer features.SetForTesting(features.WatchListClient, true)()
	synctest.Test(t, func(t *testing.T) {
		// A server that rejects watch-list gets a plain list instead.
		src := fakelw.New(&corev1.Pod{})
		src.SetWatchListSupported(true)
		src.FailWatch(apierrors.NewBadRequest("watch-list not supported"))
		store := &recordingStore{}
		stop := runReflector(t, newTestReflector(src, store, ReflectorOptions{}))
		equalLines(t, "calls", src.CallStrings(), []string{
			`watch rv="" match=NotOlderThan initial-events bookmarks`,
			`list rv="0" limit=500`,
			`watch rv="0" bookmarks`,
		})
		stop()
	})
}

func TestReflectorWatchListSkippedWhenUnsupported(t *testing.T) {
	defer features.SetForTesting(features.WatchListClient, true)()
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{}) // opts out by default
		stop := runReflector(t, newTestReflector(src, &recordingStore{}, ReflectorOptions{}))
		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="0" bookmarks`})
		stop()
	})
}
