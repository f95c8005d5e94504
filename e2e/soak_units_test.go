package e2e

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// These tests need no cluster: they check the soak's comparison filter,
// its gap bookkeeping and its chart.

func TestSoakKeptTokens(t *testing.T) {
	toks := []soakTok{
		{rv: 5, present: true},                  // initial list: in gap (0, 10]
		{rv: 12, present: true},                 // watched
		{rv: 12, present: true},                 // relist update of an unchanged object: a repeat
		{rv: 15, present: true},                 // in gap (12, 20]
		{rv: 12, present: false, unknown: true}, // tombstone
		{rv: 25, present: false},                // watched delete
	}
	kept, excluded := keptTokens(toks, []rvGap{{0, 10}, {12, 20}})
	want := []soakTok{{rv: 12, present: true}, {rv: 25, present: false}}
	if !reflect.DeepEqual(kept, want) || excluded != 3 {
		t.Fatalf("kept %v excluded %d; want %v excluded 3", kept, excluded, want)
	}
	if kept, _ := keptTokens(toks, []rvGap{{12, -1}}); !reflect.DeepEqual(kept, []soakTok{{rv: 5, present: true}, {rv: 12, present: true}}) {
		t.Fatalf("unbounded gap: kept %v", kept)
	}
}

func cmAt(rv string, annotations map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n", ResourceVersion: rv, Annotations: annotations}}
}

func TestGapLWRecordsListsAndWatchLists(t *testing.T) {
	fw := watch.NewFake()
	lw := &gapLW{
		list: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
		},
		watch: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	if _, err := lw.List(metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := lw.Watch(metav1.ListOptions{ResourceVersion: "10"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		fw.Modify(cmAt("14", nil))
		fw.Stop()
	}()
	for range w.ResultChan() {
	}
	w.Stop()
	// A watch-list stream: its initial events lie in the gap that its end
	// bookmark closes.
	fw2 := watch.NewFake()
	lw.watch = func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw2, nil }
	yes := true
	w, err = lw.Watch(metav1.ListOptions{ResourceVersion: "14", SendInitialEvents: &yes})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		fw2.Add(cmAt("16", nil))
		fw2.Action(watch.Bookmark, cmAt("30", map[string]string{metav1.InitialEventsAnnotationKey: "true"}))
		fw2.Modify(cmAt("31", nil))
		fw2.Stop()
	}()
	for range w.ResultChan() {
	}
	w.Stop()
	if got, want := lw.gapSnapshot(), []rvGap{{0, 10}, {14, 30}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("gaps %v, want %v", got, want)
	}
	if got := lw.forwarded.Load(); got != 2 {
		t.Fatalf("forwarded %d watch events, want 2 (rv 14 and 31)", got)
	}
}

func TestSoakChartIsAPNG(t *testing.T) {
	r := &soakReport{Seed: 1, Duration: "1m", Elapsed: 60, Writes: 100, FaultsByKind: map[string]int{"apiserver-kill": 1}}
	r.Faults = []soakFault{{Kind: "apiserver-kill", Target: "main", Start: 10, End: 20}}
	for i := 1; i <= 60; i++ {
		r.Samples = append(r.Samples, soakSample{
			T: float64(i), Writes: int64(i * 40),
			Delivered: map[string]int64{"main/fanout": int64(i * 40)},
			Pending:   map[string]int64{"main/fanout/grow": int64(i % 7)},
		})
	}
	path := filepath.Join(t.TempDir(), "timeline.png")
	if err := writeSoakChart(path, r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != chartW || b.Dy() != chartH {
		t.Fatalf("chart is %v, want %dx%d", b, chartW, chartH)
	}
}

func TestSoakCompareFindsAMissedEvent(t *testing.T) {
	e := &soakEnv{viol: newSoakViolations(time.Now())}
	call := func(h *soakHandler, rv string, del bool) {
		cm := cmAt(rv, nil)
		if del {
			h.OnDelete(cm)
		} else {
			h.OnUpdate(cm, cm)
		}
	}
	ref := newSoakHandler("ref", "grow", false, e.viol, func() {})
	got := newSoakHandler("got", "grow", true, e.viol, func() {})
	for _, rv := range []string{"3", "7", "9"} {
		call(ref, rv, false)
	}
	call(ref, "11", true)
	// got relisted over (5, 8]: it misses 7, which the comparison excuses,
	// but it also misses 9, which it does not.
	call(got, "3", false)
	call(got, "8", false)
	call(got, "11", true)
	rs := &soakSubject{lw: &gapLW{gaps: []rvGap{{0, 2}}}}
	s := &soakSubject{lw: &gapLW{gaps: []rvGap{{0, 2}, {5, 8}}}}
	c := e.compareWithRef(rs, ref, s, got)
	if c.DiffKeys != 1 || c.Compared != 2 || c.Excluded != 2 {
		t.Fatalf("comparison %+v: want 1 differing key, 2 calls compared (3, del@11), 2 excluded (7, 8)", c)
	}
	counts, msgs, _ := e.viol.snapshot()
	if counts["vs-client-go"] != 1 || !strings.Contains(msgs[0], "[3 9 del@11]") || !strings.Contains(msgs[0], "[3 del@11]") {
		t.Fatalf("violations %v %q", counts, msgs)
	}
	// Without the call at 9 the two agree.
	e = &soakEnv{viol: newSoakViolations(time.Now())}
	ref2 := newSoakHandler("ref", "grow", false, e.viol, func() {})
	for _, rv := range []string{"3", "7"} {
		call(ref2, rv, false)
	}
	call(ref2, "11", true)
	if c := e.compareWithRef(rs, ref2, s, got); c.DiffKeys != 0 {
		t.Fatalf("comparison %+v: want no difference", c)
	}
}

// The sharded group's check finds an object in two replicas' stores, one
// in none, and a handler that differs from its replica's store.
func TestSoakShardGroupCheck(t *testing.T) {
	cm := func(name, rv string) any {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	replica := func(objs ...any) *soakSubject {
		s := &soakSubject{name: "main/shard", list: func() []any { return objs }}
		h := newSoakHandler("main/shard/grow", "grow", false, newSoakViolations(time.Now()), func() {})
		for _, o := range objs {
			h.OnAdd(o, true)
		}
		s.regs = []*soakReg{plainSoakReg(h, func() bool { return true }, nil)}
		return s
	}
	want := map[string]string{"ns/a": "1", "ns/b": "2"}
	for _, tc := range []struct {
		name     string
		replicas []*soakSubject
		kind     string
	}{
		{"partition", []*soakSubject{replica(cm("a", "1")), replica(cm("b", "2"))}, ""},
		{"twice", []*soakSubject{replica(cm("a", "1"), cm("b", "2")), replica(cm("b", "2"))}, "shard-exclusive"},
		{"missing", []*soakSubject{replica(cm("a", "1")), replica()}, "store-vs-server"},
		{"old version", []*soakSubject{replica(cm("a", "1")), replica(cm("b", "1"))}, "store-vs-server"},
	} {
		sg := &soakShardGroup{replicas: tc.replicas}
		if _, kind := sg.check(want); kind != tc.kind {
			t.Errorf("%s: got %q, want %q", tc.name, kind, tc.kind)
		}
	}
	// Told of a recreated b (another UID) while still believing in the
	// first one: the handler's state by key equals no server state.
	rb := replica(cm("b", "2"))
	rb.regs[0].h.identity = soakShardIdentity
	recreated := cm("b", "3").(*corev1.ConfigMap)
	recreated.UID = "second"
	rb.regs[0].h.OnAdd(recreated, false)
	rb.list = func() []any { return []any{recreated} }
	if _, kind := (&soakShardGroup{replicas: []*soakSubject{replica(cm("a", "1")), rb}}).check(map[string]string{"ns/a": "1", "ns/b": "3"}); kind != "handler-final-state" {
		t.Errorf("a handler believing in two objects of one key: got %q, want handler-final-state", kind)
	}
	r0, r1 := replica(cm("a", "1")), replica(cm("b", "2"))
	r1.regs[0].h.OnDelete(cm("b", "2"))
	sg := &soakShardGroup{replicas: []*soakSubject{r0, r1}}
	if _, kind := sg.check(want); kind != "handler-final-state" {
		t.Errorf("a handler told less than its store: got %q, want handler-final-state", kind)
	}
}
