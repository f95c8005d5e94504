//go:build !clientgo035

// Needs client-go v0.36 or later: FIFO.Done.
// Builds that link an older client-go set the tag of its minor: clientgo035
// or clientgo036 (Makefile, hack/compat.sh).

package parity

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	cgcache "k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// kv is a test object: key and value.
type kv struct{ k, v string }

func kvKey(obj any) (string, error) {
	o, ok := obj.(kv)
	if !ok {
		return "", errors.New("not a kv")
	}
	return o.k, nil
}

// op is one step of a script run against client-go's type and fanout's;
// it returns what it observed, printed.
type op func(q any) string

// fifoLike is what client-go's FIFO and fanout's have in common.
type fifoLike interface {
	Add(any) error
	Update(any) error
	Delete(any) error
	Replace([]any, string) error
	Resync() error
	HasSynced() bool
	Close()
	IsClosed() bool
}

func fifoPop(q any, n int) string {
	// process runs under the FIFO's lock, where HasSynced would
	// deadlock: it reads the Done channel instead.
	var out []string
	for range n {
		var got string
		switch q := q.(type) {
		case *cgcache.FIFO:
			_, _ = q.Pop(func(obj any, initial bool) error {
				got = fmt.Sprintf("%v initial=%v synced=%v", obj, initial, isClosed(q.Done()))
				return nil
			})
		case *informer.FIFO:
			_, _ = q.Pop(func(obj any, initial bool) error {
				got = fmt.Sprintf("%v initial=%v synced=%v", obj, initial, isClosed(q.Done()))
				return nil
			})
		}
		out = append(out, got)
	}
	slices.Sort(out) // Replace queues in map order
	return strings.Join(out, "; ") + fmt.Sprintf(" after: synced=%v", q.(fifoLike).HasSynced())
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestFIFOMatchesClientGo runs scripts of writes and pops against
// client-go v0.37.2's FIFO and fanout's and compares what they observe:
// popped objects, the initial-list flag and HasSynced.
func TestFIFOMatchesClientGo(t *testing.T) {
	w := func(f func(fifoLike) error, desc string) op {
		return func(q any) string { return fmt.Sprintf("%s err=%v", desc, f(q.(fifoLike))) }
	}
	add := func(k, v string) op { return w(func(q fifoLike) error { return q.Add(kv{k, v}) }, "add "+k) }
	del := func(k string) op { return w(func(q fifoLike) error { return q.Delete(kv{k, ""}) }, "delete "+k) }
	replace := func(objs ...kv) op {
		return w(func(q fifoLike) error {
			list := make([]any, len(objs))
			for i, o := range objs {
				list[i] = o
			}
			return q.Replace(list, "1")
		}, fmt.Sprint("replace ", objs))
	}
	resync := w(func(q fifoLike) error { return q.Resync() }, "resync")
	pop := func(n int) op { return func(q any) string { return "pop " + fifoPop(q, n) } }
	synced := func(q any) string { return fmt.Sprint("synced ", q.(fifoLike).HasSynced()) }
	tests := []struct {
		name   string
		script []op
	}{
		{"add before replace syncs", []op{synced, add("a", "1"), synced, add("b", "1"), add("a", "2"), pop(2)}},
		{"replace then pop all", []op{replace(kv{"a", "1"}, kv{"b", "1"}, kv{"c", "1"}), synced, pop(3), synced}},
		// Replace queues in map order in both, so a script that pops
		// fewer items than Replace queued must not depend on that order.
		{"deleted initial item is skipped", []op{replace(kv{"a", "1"}), del("a"), add("b", "1"), pop(1), synced}},
		{"all initial items deleted", []op{replace(kv{"a", "1"}, kv{"b", "1"}), del("a"), del("b"), synced, add("c", "1"), pop(1), synced}},
		{"update keeps place", []op{add("a", "1"), add("b", "1"), add("a", "2"), pop(1), pop(1)}},
		{"resync requeues stored keys", []op{add("a", "1"), pop(1), add("b", "1"), resync, pop(1)}},
		{"key error", []op{w(func(q fifoLike) error { return q.Add("x") }, "add bad")}},
		{"empty replace syncs", []op{replace(), synced, add("a", "1"), pop(1)}},
		{"second replace drops queue", []op{replace(kv{"a", "1"}), replace(kv{"b", "1"}), pop(1), synced}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cg, fo := cgcache.NewFIFO(kvKey), informer.NewFIFO(kvKey)
			for i, step := range tt.script {
				require.Equal(t, step(cg), step(fo), "step %d", i)
			}
			cg.Close()
			fo.Close()
			_, cgErr := cg.Pop(func(any, bool) error { return nil })
			_, foErr := fo.Pop(func(any, bool) error { return nil })
			require.Equal(t, cgErr.Error(), foErr.Error())
			require.Equal(t, cg.IsClosed(), fo.IsClosed())
		})
	}
}

// heapLike is what client-go's Heap and fanout's have in common.
type heapLike interface {
	Add(any) error
	BulkAdd([]any) error
	AddIfNotPresent(any) error
	Update(any) error
	Delete(any) error
	Pop() (any, error)
	List() []any
	ListKeys() []string
	Get(any) (any, bool, error)
	GetByKey(string) (any, bool, error)
	Close()
	IsClosed() bool
}

// TestHeapMatchesClientGo runs scripts against client-go v0.37.2's Heap
// and fanout's and compares every result.
func TestHeapMatchesClientGo(t *testing.T) {
	less := func(a, b any) bool { return a.(kv).v < b.(kv).v }
	h := func(desc string, f func(heapLike) any) op {
		return func(q any) string { return fmt.Sprintf("%s: %v", desc, f(q.(heapLike))) }
	}
	errs := func(err error) any { return fmt.Sprint(err) }
	add := func(k, v string) op { return h("add", func(q heapLike) any { return errs(q.Add(kv{k, v})) }) }
	pop := h("pop", func(q heapLike) any { o, err := q.Pop(); return fmt.Sprint(o, err) })
	list := h("list", func(q heapLike) any {
		var s []string
		for _, o := range q.List() {
			s = append(s, fmt.Sprint(o))
		}
		slices.Sort(s)
		keys := q.ListKeys()
		slices.Sort(keys)
		return fmt.Sprint(s, keys)
	})
	get := func(k string) op {
		return h("get "+k, func(q heapLike) any {
			o, ok, err := q.GetByKey(k)
			o2, ok2, err2 := q.Get(kv{k, ""})
			return fmt.Sprint(o, ok, err, o2, ok2, err2)
		})
	}
	tests := []struct {
		name   string
		script []op
	}{
		{"pops in order", []op{add("a", "3"), add("b", "1"), add("c", "2"), list, pop, pop, pop}},
		{"add replaces and reorders", []op{add("a", "3"), add("b", "1"), add("a", "0"), get("a"), pop, pop}},
		{"add if not present keeps first", []op{add("a", "3"), h("ainp", func(q heapLike) any { return errs(q.AddIfNotPresent(kv{"a", "0"})) }), h("aninp", func(q heapLike) any { return errs(q.AddIfNotPresent(kv{"b", "1"})) }), pop, pop}},
		{"bulk add", []op{h("bulk", func(q heapLike) any { return errs(q.BulkAdd([]any{kv{"a", "2"}, kv{"b", "1"}, kv{"a", "0"}})) }), list, pop, pop}},
		{"bulk add key error", []op{h("bulk", func(q heapLike) any { return errs(q.BulkAdd([]any{kv{"a", "2"}, "x", kv{"b", "1"}})) }), list}},
		{"delete", []op{add("a", "1"), add("b", "2"), add("c", "3"), h("del", func(q heapLike) any { return errs(q.Delete(kv{"a", ""})) }), h("del missing", func(q heapLike) any { return errs(q.Delete(kv{"z", ""})) }), get("a"), pop, pop}},
		{"update", []op{add("a", "5"), add("b", "2"), h("update", func(q heapLike) any { return errs(q.Update(kv{"a", "1"})) }), pop}},
		{"closed", []op{add("a", "1"), h("close", func(q heapLike) any { q.Close(); return q.IsClosed() }), add("b", "0"), h("aninp", func(q heapLike) any { return errs(q.AddIfNotPresent(kv{"b", "1"})) }), pop, pop}},
		{"key errors", []op{h("add", func(q heapLike) any { return errs(q.Add("x")) }), h("get", func(q heapLike) any { _, _, err := q.Get("x"); return errs(err) }), h("del", func(q heapLike) any { return errs(q.Delete("x")) })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cg, fo := cgcache.NewHeap(kvKey, less), informer.NewHeap(kvKey, less)
			for i, step := range tt.script {
				require.Equal(t, step(cg), step(fo), "step %d", i)
			}
		})
	}
}

// TestUndeltaStoreMatchesClientGo compares the pushes of client-go
// v0.37.2's UndeltaStore and fanout's for the same writes.
func TestUndeltaStoreMatchesClientGo(t *testing.T) {
	type store interface {
		Add(any) error
		Update(any) error
		Delete(any) error
		Replace([]any, string) error
	}
	script := func(s store) []error {
		return []error{
			s.Add(kv{"a", "1"}), s.Add(kv{"b", "1"}), s.Update(kv{"a", "2"}), s.Add("bad"),
			s.Delete(kv{"b", ""}), s.Replace([]any{kv{"c", "1"}, kv{"d", "1"}}, "5"), s.Delete(kv{"zz", ""}),
		}
	}
	record := func(pushes *[]string) func([]any) {
		return func(list []any) {
			var s []string
			for _, o := range list {
				s = append(s, fmt.Sprint(o))
			}
			slices.Sort(s)
			*pushes = append(*pushes, strings.Join(s, ","))
		}
	}
	var cgPushes, foPushes []string
	cg := cgcache.NewUndeltaStore(record(&cgPushes), kvKey)
	fo := informer.NewUndeltaStore(record(&foPushes), kvKey)
	cgErrs, foErrs := script(cg), script(fo)
	require.Equal(t, fmt.Sprint(cgErrs), fmt.Sprint(foErrs))
	require.Equal(t, cgPushes, foPushes)
	require.Len(t, foPushes, 6)
}
