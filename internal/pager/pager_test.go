package pager

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// pages serves n pods in pages of opts.Limit, recording every request.
type pages struct {
	n         int
	calls     []metav1.ListOptions
	expireAt  int // the call index (0-based) that fails with 410; -1 for none
	failFirst error
}

func (p *pages) fn(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	p.calls = append(p.calls, opts)
	if len(p.calls)-1 == p.expireAt {
		return nil, apierrors.NewResourceExpired("continue token expired")
	}
	if p.failFirst != nil && len(p.calls) == 1 {
		return nil, p.failFirst
	}
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := p.n
	if opts.Limit > 0 && start+int(opts.Limit) < p.n {
		end = start + int(opts.Limit)
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}}
	for i := start; i < end; i++ {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i)}})
	}
	if end < p.n {
		list.Continue = strconv.Itoa(end)
	}
	return list, nil
}

func names(t *testing.T, obj runtime.Object) []string {
	t.Helper()
	items, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, it.(*corev1.Pod).Name)
	}
	return out
}

func summary(calls []metav1.ListOptions) []string {
	var out []string
	for _, c := range calls {
		out = append(out, fmt.Sprintf("rv=%q limit=%d continue=%q", c.ResourceVersion, c.Limit, c.Continue))
	}
	return out
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestListSinglePageReturnsResponseUnchanged(t *testing.T) {
	p := &pages{n: 3, expireAt: -1}
	list, paginated, err := New(p.fn).List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil || paginated {
		t.Fatalf("err=%v paginated=%v", err, paginated)
	}
	if _, ok := list.(*corev1.PodList); !ok {
		t.Fatalf("got %T, want the page itself", list)
	}
	equal(t, summary(p.calls), []string{`rv="0" limit=500 continue=""`})
}

func TestListJoinsPages(t *testing.T) {
	p := &pages{n: 5, expireAt: -1}
	pg := New(p.fn)
	pg.PageSize = 2
	list, paginated, err := pg.ListWithAlloc(context.Background(), metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil || !paginated {
		t.Fatalf("err=%v paginated=%v", err, paginated)
	}
	equal(t, names(t, list), []string{"p0", "p1", "p2", "p3", "p4"})
	if rv, _ := meta.NewAccessor().ResourceVersion(list); rv != "42" {
		t.Fatalf("resourceVersion %q, want 42", rv)
	}
	equal(t, summary(p.calls), []string{
		`rv="0" limit=2 continue=""`,
		`rv="" limit=2 continue="2"`,
		`rv="" limit=2 continue="4"`,
	})
	if p.calls[1].ResourceVersionMatch != "" {
		t.Fatalf("continue request kept ResourceVersionMatch %q", p.calls[1].ResourceVersionMatch)
	}
}

func TestListExpiredContinueFallsBackToFullList(t *testing.T) {
	p := &pages{n: 5, expireAt: 1}
	pg := New(p.fn)
	pg.PageSize = 2
	list, paginated, err := pg.List(context.Background(), metav1.ListOptions{ResourceVersion: "7"})
	if err != nil || !paginated {
		t.Fatalf("err=%v paginated=%v", err, paginated)
	}
	equal(t, names(t, list), []string{"p0", "p1", "p2", "p3", "p4"})
	equal(t, summary(p.calls), []string{
		`rv="7" limit=2 continue=""`,
		`rv="" limit=2 continue="2"`,
		`rv="7" limit=0 continue=""`,
	})
}

func TestListExpiredWithoutFallbackReturnsError(t *testing.T) {
	p := &pages{n: 5, expireAt: 1}
	pg := New(p.fn)
	pg.PageSize = 2
	pg.FullListIfExpired = false
	if _, _, err := pg.List(context.Background(), metav1.ListOptions{}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("err = %v, want 410 Expired", err)
	}
	if len(p.calls) != 2 {
		t.Fatalf("%d calls, want 2", len(p.calls))
	}
}

func TestListFirstPageExpiredIsReturned(t *testing.T) {
	p := &pages{n: 5, expireAt: 0}
	if _, _, err := New(p.fn).List(context.Background(), metav1.ListOptions{}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("err = %v, want 410 Expired", err)
	}
	if len(p.calls) != 1 {
		t.Fatalf("%d calls, want 1 (no full-list retry for the first page)", len(p.calls))
	}
}

func TestListErrors(t *testing.T) {
	boom := errors.New("boom")
	p := &pages{n: 1, expireAt: -1, failFirst: boom}
	if _, _, err := New(p.fn).List(context.Background(), metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	notList := func(context.Context, metav1.ListOptions) (runtime.Object, error) { return &corev1.Pod{}, nil }
	if _, _, err := New(notList).List(context.Background(), metav1.ListOptions{}); err == nil {
		t.Fatal("a non-list response must be an error")
	}
	if _, _, err := (&ListPager{}).List(context.Background(), metav1.ListOptions{}); err == nil {
		t.Fatal("a nil PageFn must be an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := New(p.fn).List(ctx, metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestSimplePageFunc(t *testing.T) {
	var got metav1.ListOptions
	fn := SimplePageFunc(func(o metav1.ListOptions) (runtime.Object, error) { got = o; return &corev1.PodList{}, nil })
	if _, err := fn(context.Background(), metav1.ListOptions{Limit: 3}); err != nil || got.Limit != 3 {
		t.Fatalf("err=%v got=%+v", err, got)
	}
}
