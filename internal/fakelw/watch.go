package fakelw

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// WatchWithContext implements informer.WatcherWithContext.
//
//   - RV "" or "0": an Added event per current object, then new changes.
//   - With SendInitialEvents=true and watch-list supported: the same
//     Added events, then the initial-events-end bookmark at the current
//     resourceVersion, then new changes.
//   - A numeric RV: the changes after it from history, then new changes;
//     410 Expired if that history was compacted, and a "too large resource
//     version" error if it is newer than the Source.
//
// The watch stays open until the client stops it or CloseWatches.
func (s *Source) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, Call{Verb: VerbWatch, Options: options})
	if err := popErr(&s.watchErrs); err != nil {
		return nil, err
	}
	rv, err := parseRV(options.ResourceVersion)
	if err != nil {
		return nil, err
	}
	streaming := s.watchListSupported && options.SendInitialEvents != nil && *options.SendInitialEvents
	var initial []watch.Event
	switch {
	case rv > s.rv:
		return nil, tooLargeRV(rv)
	case rv < 0 || streaming:
		for _, obj := range s.sortedItemsLocked() {
			initial = append(initial, watch.Event{Type: watch.Added, Object: obj.DeepCopyObject()})
		}
		if streaming {
			initial = append(initial, watch.Event{Type: watch.Bookmark, Object: s.bookmarkLocked(true)})
		}
	case rv < s.compactedRV:
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, s.compactedRV))
	default:
		for _, c := range s.history {
			if c.rv > rv {
				initial = append(initial, watch.Event{Type: c.event.Type, Object: c.event.Object.DeepCopyObject()})
			}
		}
	}
	w := newFakeWatch(watchOptions{bookmarks: options.AllowWatchBookmarks}, initial)
	s.watches = append(s.watches, w)
	return w, nil
}
