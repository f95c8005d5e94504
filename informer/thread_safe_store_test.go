package informer

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestThreadSafeStoreResourceVersion(t *testing.T) {
	s := NewThreadSafeStore(Indexers{}, Indices{})
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"initial", func() {}, ""},
		{"add", func() { s.Add("k1", &metav1.ObjectMeta{ResourceVersion: "10"}) }, "10"},
		{"add same rv", func() { s.Add("k2", &metav1.ObjectMeta{ResourceVersion: "10"}) }, "10"},
		{"add higher", func() { s.Add("k3", &metav1.ObjectMeta{ResourceVersion: "20"}) }, "20"},
		{"delete with newer", func() { s.DeleteWithObject("k3", &metav1.ObjectMeta{ResourceVersion: "30"}) }, "30"},
		{"add non-meta", func() { s.Add("k4", "just a string") }, "30"},
		{"add 40", func() { s.Update("k5", &metav1.ObjectMeta{ResourceVersion: "40"}) }, "40"},
		{"delete without object", func() { s.Delete("k5") }, "40"},
		{"bookmark", func() { s.Bookmark("45") }, "45"},
		{"replace", func() {
			s.Replace(map[string]any{"k6": &metav1.ObjectMeta{ResourceVersion: "1"}}, "50")
		}, "50"},
	}
	for _, step := range steps {
		step.do()
		assert.Equal(t, step.want, s.LastStoreSyncResourceVersion(), step.name)
	}
	assert.Equal(t, []string{"k6"}, s.ListKeys())
	assert.NoError(t, s.Resync())
}

func TestThreadSafeStoreDeleteRemovesEmptySets(t *testing.T) {
	byRV := Indexers{"rv": func(obj any) ([]string, error) {
		return []string{obj.(*metav1.ObjectMeta).ResourceVersion}, nil
	}}
	s := NewThreadSafeStore(byRV, Indices{})
	s.Add("a", &metav1.ObjectMeta{ResourceVersion: "1"})
	s.Add("b", &metav1.ObjectMeta{ResourceVersion: "1"})
	s.Add("c", &metav1.ObjectMeta{ResourceVersion: "2"})
	s.Delete("a")
	assert.Equal(t, []string{"1", "2"}, storeSorted(s.ListIndexFuncValues("rv")))
	s.Delete("b")
	assert.Equal(t, []string{"2"}, s.ListIndexFuncValues("rv"))
	s.Update("c", &metav1.ObjectMeta{ResourceVersion: "3"})
	assert.Equal(t, []string{"3"}, s.ListIndexFuncValues("rv"))
	s.Delete("missing")
	assert.Equal(t, []string{"c"}, s.ListKeys())
}

// TestIndexerConcurrentReadersAndWriters runs under -race: writers add,
// update, delete and replace while readers query every method. The final
// state is checked exactly.
func TestIndexerConcurrentReadersAndWriters(t *testing.T) {
	idx := newTierIndexer()
	const writers, perWriter = 4, 200
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			ns := fmt.Sprintf("ns%d", w)
			for i := range perWriter {
				name := fmt.Sprintf("p%d", i%10)
				tier := map[string]string{"tier": fmt.Sprintf("t%d", i%3)}
				assert.NoError(t, idx.Add(storePod(ns, name, fmt.Sprint(i), tier)))
				if i%7 == 0 {
					assert.NoError(t, idx.Delete(storePod(ns, name, fmt.Sprint(i), nil)))
				}
			}
		})
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				_ = idx.List()
				_ = idx.ListKeys()
				_, _ = idx.ByIndex("tier", "t1")
				_, _ = idx.IndexKeys(NamespaceIndex, "ns1")
				_, _ = idx.Index(NamespaceIndex, storePod("ns2", "", "", nil))
				_ = idx.ListIndexFuncValues("tier")
				_ = idx.GetIndexers()
				_ = idx.LastStoreSyncResourceVersion()
				_ = ListAllByNamespace(idx, "ns3", nil, func(any) {})
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()

	// Each writer's last writes: i in 190..199 -> names p0..p9 with tier
	// t(i%3); i=196 (p6) was deleted.
	want := indexState{}
	for w := range writers {
		for i := 190; i < 200; i++ {
			if i == 196 {
				continue
			}
			tier := fmt.Sprintf("t%d", i%3)
			want[tier] = append(want[tier], fmt.Sprintf("ns%d/p%d", w, i%10))
		}
	}
	for k, v := range want {
		want[k] = storeSorted(v)
	}
	assert.Equal(t, want, indexStateOf(t, idx, "tier"))
	assert.Len(t, idx.ListKeys(), writers*9)
}
