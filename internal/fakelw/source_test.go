package fakelw

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func describeList(t *testing.T, obj runtime.Object) string {
	t.Helper()
	items, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatal(err)
	}
	lm, _ := meta.ListAccessor(obj)
	s := fmt.Sprintf("rv=%s continue=%q:", lm.GetResourceVersion(), lm.GetContinue())
	for _, it := range items {
		m, _ := meta.Accessor(it)
		s += " " + m.GetName() + "@" + m.GetResourceVersion()
	}
	return s
}

// drain reads n events and describes them.
func drain(t *testing.T, w watch.Interface, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatalf("watch closed after %v", out)
		}
		m, _ := meta.Accessor(ev.Object)
		out = append(out, fmt.Sprintf("%s %s@%s", ev.Type, m.GetName(), m.GetResourceVersion()))
	}
	return out
}

func eq(t *testing.T, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

func TestListPaginationAndExpiry(t *testing.T) {
	s := New(&corev1.Pod{})
	for _, n := range []string{"c", "a", "b"} {
		s.Add(pod(n))
	}
	first, err := s.List(metav1.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, describeList(t, first), `rv=3 continue="0:2": a@2 b@3`)
	s.Add(pod("d")) // pages come from the first page's snapshot
	second, err := s.List(metav1.ListOptions{Limit: 2, Continue: "0:2"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, describeList(t, second), `rv=3 continue="": c@1`)
	full, _ := s.List(metav1.ListOptions{})
	eq(t, describeList(t, full), `rv=4 continue="": a@2 b@3 c@1 d@4`)

	if _, err := s.List(metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	s.ExpireContinueTokens()
	if _, err := s.List(metav1.ListOptions{Limit: 1, Continue: "2:1"}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("err = %v, want 410 Expired", err)
	}
	if _, err := s.List(metav1.ListOptions{ResourceVersion: "99"}); !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		t.Fatalf("err = %v, want too large RV", err)
	}
	eq(t, s.CallStrings(), []string{
		`list rv="" limit=2`, `list rv="" limit=2 continue="0:2"`, `list rv=""`,
		`list rv="" limit=1`, `list rv="" limit=1 continue="2:1"`, `list rv="99"`,
	})
}

func TestQueuedErrors(t *testing.T) {
	s := New(&corev1.Pod{})
	boom := errors.New("boom")
	s.FailList(boom)
	s.FailWatch(boom)
	if _, err := s.List(metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Fatalf("list err = %v", err)
	}
	if _, err := s.List(metav1.ListOptions{}); err != nil {
		t.Fatalf("second list err = %v", err)
	}
	if _, err := s.Watch(metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Fatalf("watch err = %v", err)
	}
}

func TestWatchReplayCompactionAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(&corev1.Pod{})
		s.Add(pod("a"))
		p := s.Add(pod("b"))
		s.Delete(p)
		w, err := s.Watch(metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, drain(t, w, 2), []string{"ADDED b@2", "DELETED b@3"})
		s.Modify(pod("a"))
		s.SendBookmark()
		eq(t, drain(t, w, 2), []string{"MODIFIED a@4", "BOOKMARK @4"})
		if n := s.OpenWatches(); n != 1 {
			t.Fatalf("open watches %d", n)
		}
		s.CloseWatches()
		if _, ok := <-w.ResultChan(); ok {
			t.Fatal("watch still open after CloseWatches")
		}
		s.Compact()
		if _, err := s.Watch(metav1.ListOptions{ResourceVersion: "2"}); !apierrors.IsResourceExpired(err) {
			t.Fatalf("err = %v, want 410", err)
		}
		w2, _ := s.Watch(metav1.ListOptions{ResourceVersion: "0"})
		eq(t, drain(t, w2, 1), []string{"ADDED a@4"})
		s.SendBookmark() // w2 did not allow bookmarks
		s.SendWatchError(apierrors.NewResourceExpired("gone"))
		ev := <-w2.ResultChan()
		if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
			t.Fatalf("got %v, want a 410 error event", ev)
		}
		w2.Stop()
		w2.Stop()
		synctest.Wait()
		if n := s.OpenWatches(); n != 0 {
			t.Fatalf("open watches %d", n)
		}
	})
}

func TestWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(&corev1.Pod{})
		if !s.IsWatchListSemanticsUnSupported() {
			t.Fatal("watch-list must be unsupported by default")
		}
		s.SetWatchListSupported(true)
		s.Add(pod("a"))
		w, err := s.Watch(metav1.ListOptions{SendInitialEvents: ptr.To(true), AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, w, 2)
		eq(t, got, []string{"ADDED a@1", "BOOKMARK @1"})
		w.Stop()
	})
}

func TestManyEventsDoNotBlockOrPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(&corev1.Pod{})
		w, _ := s.Watch(metav1.ListOptions{ResourceVersion: "0"})
		for i := range 500 {
			s.Add(pod(fmt.Sprint(i)))
		}
		got := drain(t, w, 500)
		eq(t, got[499], "ADDED 499@500")
		w.Stop()
	})
}
