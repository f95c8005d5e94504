package fakelw

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ListWithContext implements informer.ListerWithContext. It returns the
// current objects sorted by key, at the current resourceVersion (any
// requested version not newer than that is treated as "not older than").
// With Limit > 0 it returns at most Limit objects and a continue token for
// the rest, which are served from the first page's snapshot.
func (s *Source) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, Call{Verb: VerbList, Options: options})
	if err := popErr(&s.listErrs); err != nil {
		return nil, err
	}
	var (
		snap   listSnapshot
		id     int
		offset int
	)
	if options.Continue != "" {
		if s.continueExpired {
			return nil, apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result.")
		}
		var ok bool
		id, offset, ok = parseContinue(options.Continue)
		if snap, ok = s.snapshots[id]; !ok || offset > len(snap.items) {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token %q", options.Continue))
		}
	} else {
		rv, err := parseRV(options.ResourceVersion)
		if err != nil {
			return nil, err
		}
		if rv > s.rv {
			return nil, tooLargeRV(rv)
		}
		snap = listSnapshot{rv: s.rv, items: s.sortedItemsLocked()}
		id = s.nextSnapshot
		s.nextSnapshot++
	}
	end := len(snap.items)
	cont := ""
	if options.Limit > 0 && int64(end-offset) > options.Limit {
		end = offset + int(options.Limit)
		cont = fmt.Sprintf("%d:%d", id, end)
		s.snapshots[id] = snap
	} else {
		delete(s.snapshots, id)
	}
	page := make([]runtime.Object, 0, end-offset)
	for _, obj := range snap.items[offset:end] {
		page = append(page, obj.DeepCopyObject())
	}
	list := s.newList()
	if err := meta.SetList(list, page); err != nil {
		return nil, err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	lm.SetResourceVersion(strconv.Itoa(snap.rv))
	lm.SetContinue(cont)
	return list, nil
}

func (s *Source) sortedItemsLocked() []runtime.Object {
	keys := make([]string, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	items := make([]runtime.Object, 0, len(keys))
	for _, k := range keys {
		items = append(items, s.items[k])
	}
	return items
}

func parseContinue(token string) (id, offset int, ok bool) {
	a, b, found := strings.Cut(token, ":")
	if !found {
		return 0, 0, false
	}
	id, err1 := strconv.Atoi(a)
	offset, err2 := strconv.Atoi(b)
	return id, offset, err1 == nil && err2 == nil && offset >= 0
}
