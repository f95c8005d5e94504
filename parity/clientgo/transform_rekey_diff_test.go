//go:build !clientgo035

// Shares the DeltaFIFO differential's helpers (deltafifo_diff_test.go),
// which need client-go v0.36 or later.

package parity

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/deltafifo"
	"github.com/kfanout/fanout/informer"
)

// renamingTransform is a transform that changes an object's key: it
// appends "-t" to the name (once) and marks the object as transformed.
func renamingTransform(obj any) (any, error) {
	out, err := informerDiffTransform(obj)
	if cm, ok := out.(*corev1.ConfigMap); ok && !strings.HasSuffix(cm.Name, "-t") {
		cm.Name += "-t"
	}
	return out, err
}

// TestKeyChangingTransformMatchesClientGo pins what a shared informer
// does with a transform that changes the object's key, a misuse that
// neither library refuses, in the in-order mode that is client-go
// v0.37.2's default: the RealFIFO queues every watch delete, and the
// informer deletes under the transformed key and tells handlers, so the
// calls are those of a transform that kept the key. fanout's InOrder
// informer must make the same calls. (The DeltaFIFO differs, in both
// libraries: TestKeyChangingTransformDeltaFIFOMatchesClientGo.)
func TestKeyChangingTransformMatchesClientGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mode := inOrderMode
		r := &diffRun{t: t, rng: rand.New(rand.NewSource(1)), mode: mode}
		r.sides = [2]*diffSide{newDiffSide("client-go", mode, false, informer.EngineDirect), newDiffSide("fanout", mode, true, informer.EngineDirect)}
		for _, s := range r.sides {
			if err := s.inf.SetTransform(renamingTransform); err != nil {
				t.Fatalf("%s: SetTransform: %v", s.name, err)
			}
			s.src.put("ns", "a", "1", true)
			s.src.put("ns", "b", "1", true)
		}
		r.addHandler("default")
		defer r.start()()
		synctest.Wait()
		r.compare("start")
		steps := []struct {
			desc string
			do   func(*diffSide)
		}{
			{"update a", func(s *diffSide) { s.src.put("ns", "a", "2", false) }},
			{"delete a", func(s *diffSide) { s.src.remove("ns", "a", false) }},
			{"add c", func(s *diffSide) { s.src.put("ns", "c", "1", false) }},
			{"delete c", func(s *diffSide) { s.src.remove("ns", "c", false) }},
			{"silently delete b, 410", func(s *diffSide) { s.src.remove("ns", "b", true); s.src.expire() }},
		}
		for _, st := range steps {
			time.Sleep(diffCell)
			r.each(st.do)
			synctest.Wait()
			for i := 0; !r.sides[0].src.watching() || !r.sides[1].src.watching(); i++ {
				if i == 20 {
					t.Fatalf("after %q: informers do not watch again", st.desc)
				}
				time.Sleep(diffCell)
				synctest.Wait()
			}
			r.history = append(r.history, st.desc)
			r.compare(st.desc)
		}
		// The comparison above would pass for two informers that both
		// ignore the transform: check that client-go's calls carry the
		// transformed keys, watch deletes included.
		calls := strings.Join(r.sides[0].logs[0].get(), "\n")
		for _, want := range []string{"add ns/a-t", "delete ns/a-t rv=4", "add ns/c-t", "delete ns/c-t rv=6", "delete ns/b-t tombstone"} {
			if !strings.Contains(calls, want) {
				t.Errorf("client-go's calls lack %q:\n%s", want, calls)
			}
		}
	})
}

// deltaWriter is the part of both DeltaFIFOs that the reflector writes to.
type deltaWriter interface {
	Add(any) error
	Delete(any) error
	Replace([]any, string) error
}

// TestKeyChangingTransformDeltaFIFOMatchesClientGo pins the DeltaFIFO's
// side of a key-changing transform: Delete looks the object up in
// KnownObjects under the key before the transform, finds nothing (the
// store holds the transformed key) and queues nothing, so a watch delete
// never reaches handlers; the next relist's Replace finds the transformed
// keys missing from the list and queues tombstones for them. client-go
// v0.37.2's DeltaFIFO does this; fanout's must do the same.
func TestKeyChangingTransformDeltaFIFOMatchesClientGo(t *testing.T) {
	cgKnown, foKnown := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc), mapStore{}
	cg := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KeyFunction: diffKey, KnownObjects: sortedStore{cgKnown}, Transformer: renamingTransform})
	fo := deltafifo.NewDeltaFIFOWithOptions(deltafifo.DeltaFIFOOptions{KeyFunction: diffKey, KnownObjects: foKnown, Transformer: renamingTransform})
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	describe := func(typ any, obj any) string {
		switch t := obj.(type) {
		case cache.DeletedFinalStateUnknown:
			return fmt.Sprintf("%v tombstone %s", typ, t.Key)
		case deltafifo.DeletedFinalStateUnknown:
			return fmt.Sprintf("%v tombstone %s", typ, t.Key)
		}
		return fmt.Sprintf("%v %s rv=%s", typ, keyOf(obj), rvOf(obj))
	}
	// pop pops n delta lists from both queues (client-go's DeltaFIFO has
	// no Len; the test closes it at the end to see that it is empty),
	// applies them to the known stores as an informer would and returns
	// both descriptions.
	pop := func(n int) (cgOut, foOut []string) {
		for range n {
			guardPop(t, cg.Close, func() {
				_, err := cg.Pop(func(obj any, _ bool) error {
					for _, d := range obj.(cache.Deltas) {
						cgOut = append(cgOut, describe(d.Type, d.Object))
						if d.Type == cache.Deleted {
							require.NoError(t, cgKnown.Delete(d.Object))
						} else {
							require.NoError(t, cgKnown.Add(d.Object))
						}
					}
					return nil
				})
				require.NoError(t, err)
			})
			_, err := fo.Pop(func(obj any, _ bool) error {
				ds := obj.(deltafifo.Deltas)
				for _, d := range ds {
					foOut = append(foOut, describe(d.Type, d.Object))
				}
				foKnown.apply(ds)
				return nil
			})
			require.NoError(t, err)
		}
		return cgOut, foOut
	}
	steps := []struct {
		desc string
		do   func(q deltaWriter) error
		want []string
	}{
		{"list a, b", func(q deltaWriter) error {
			return q.Replace([]any{cm("a", "1"), cm("b", "2")}, "2")
		}, []string{"Sync ns/a-t rv=1", "Sync ns/b-t rv=2"}},
		{"watch delete a", func(q deltaWriter) error { return q.Delete(cm("a", "3")) }, nil},
		{"watch add c, delete c", func(q deltaWriter) error {
			if err := q.Add(cm("c", "4")); err != nil {
				return err
			}
			return q.Delete(cm("c", "5"))
		}, []string{"Added ns/c-t rv=4", "Deleted ns/c-t rv=5"}},
		{"relist: nothing", func(q deltaWriter) error { return q.Replace(nil, "6") },
			[]string{"Deleted tombstone ns/a-t", "Deleted tombstone ns/b-t"}},
	}
	for _, st := range steps {
		require.NoError(t, st.do(cg), st.desc)
		require.NoError(t, st.do(fo), st.desc)
		cgOut, foOut := pop(min(len(st.want), fo.Len()))
		require.Zero(t, fo.Len(), "after %s: fanout holds more than client-go", st.desc)
		sort.Strings(cgOut)
		sort.Strings(foOut)
		require.Equal(t, cgOut, foOut, "after %s: client-go and fanout popped different deltas", st.desc)
		require.Equal(t, st.want, cgOut, "after %s: client-go popped other deltas than this test expects", st.desc)
		cgKeys := cgKnown.ListKeys() // in map order; mapStore sorts
		sort.Strings(cgKeys)
		require.Equal(t, cgKeys, foKnown.ListKeys(), "after %s: known objects", st.desc)
	}
	cg.Close()
	_, err := cg.Pop(func(any, bool) error { return nil })
	require.ErrorIs(t, err, cache.ErrFIFOClosed, "client-go's queue was not empty")
}
