//go:build !clientgo035 && !clientgo036

// Needs client-go v0.37 or later: MutationCacheOptions, OnAddOrUpdate.
// Builds that link an older client-go set the tag of its minor: clientgo035
// or clientgo036 (Makefile, hack/compat.sh).

package parity

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
)

// mutationCacheLike is what client-go's MutationCache and fanout's share.
type mutationCacheLike interface {
	GetByKey(key string) (any, bool, error)
	ByIndex(indexName, indexKey string) ([]any, error)
	Mutation(any)
	OnAddOrUpdate(obj runtime.Object)
	OnDelete(obj runtime.Object)
}

// indexerLike is the part of the backing indexers the scripts write.
type indexerLike interface {
	Add(any) error
	Delete(any) error
}

func mcPod(name, uid, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid), ResourceVersion: rv}}
}

func describeMCPod(obj any) string {
	p := obj.(*v1.Pod)
	return p.Name + "/" + string(p.UID) + "@" + p.ResourceVersion
}

// TestMutationCacheMatchesClientGo runs scripts of store writes, Mutation,
// OnAddOrUpdate and OnDelete calls against client-go v0.37.2's mutation
// cache and fanout's, with and without IncludeAdds, and compares every
// GetByKey and ByIndex result.
func TestMutationCacheMatchesClientGo(t *testing.T) {
	type step func(mc mutationCacheLike, store indexerLike) string
	storeAdd := func(p *v1.Pod) step {
		return func(_ mutationCacheLike, s indexerLike) string { return fmt.Sprint("store add ", s.Add(p)) }
	}
	storeDel := func(p *v1.Pod) step {
		return func(_ mutationCacheLike, s indexerLike) string { return fmt.Sprint("store delete ", s.Delete(p)) }
	}
	mutation := func(p *v1.Pod) step {
		return func(mc mutationCacheLike, _ indexerLike) string { mc.Mutation(p); return "mutation" }
	}
	onAdd := func(p *v1.Pod) step {
		return func(mc mutationCacheLike, _ indexerLike) string { mc.OnAddOrUpdate(p); return "on add" }
	}
	onDel := func(p *v1.Pod) step {
		return func(mc mutationCacheLike, _ indexerLike) string { mc.OnDelete(p); return "on delete" }
	}
	get := func(name string) step {
		return func(mc mutationCacheLike, _ indexerLike) string {
			obj, ok, err := mc.GetByKey("ns/" + name)
			if !ok || err != nil {
				return fmt.Sprint("get ", name, " missing ", err)
			}
			return "get " + describeMCPod(obj)
		}
	}
	byIndex := func(mc mutationCacheLike, _ indexerLike) string {
		objs, err := mc.ByIndex(cgcache.NamespaceIndex, "ns")
		var s []string
		for _, o := range objs {
			s = append(s, describeMCPod(o))
		}
		slices.Sort(s)
		return fmt.Sprint("by index ", strings.Join(s, ","), " ", err)
	}
	scripts := []struct {
		name  string
		steps []step
	}{
		{"newer mutation wins", []step{storeAdd(mcPod("a", "u1", "1")), mutation(mcPod("a", "u1", "5")), get("a"), byIndex, storeAdd(mcPod("a", "u1", "6")), get("a"), byIndex}},
		{"older mutation ignored", []step{storeAdd(mcPod("a", "u1", "5")), mutation(mcPod("a", "u1", "3")), get("a")}},
		{"mutation of unseen object", []step{mutation(mcPod("b", "u2", "2")), get("b"), byIndex, storeAdd(mcPod("b", "u2", "2")), get("b")}},
		{"on add drops caught-up entry", []step{mutation(mcPod("a", "u1", "4")), onAdd(mcPod("a", "u1", "4")), get("a"), storeAdd(mcPod("a", "u1", "3")), get("a")}},
		{"on delete leaves tombstone", []step{mutation(mcPod("a", "u1", "4")), onDel(mcPod("a", "u1", "3")), get("a"), mutation(mcPod("a", "u1", "5")), get("a"), byIndex}},
		{"tombstone blocks same version", []step{onDel(mcPod("a", "u1", "4")), mutation(mcPod("a", "u1", "4")), get("a"), mutation(mcPod("a", "u2", "7")), get("a")}},
		{"delete keeps newer instance", []step{mutation(mcPod("a", "u2", "9")), onDel(mcPod("a", "u1", "4")), get("a"), byIndex}},
		{"older mutation after tombstone", []step{onDel(mcPod("a", "u1", "4")), mutation(mcPod("a", "u1", "2")), get("a")}},
		{"store delete hides without adds", []step{storeAdd(mcPod("a", "u1", "1")), mutation(mcPod("a", "u1", "2")), storeDel(mcPod("a", "u1", "1")), get("a"), byIndex}},
	}
	for _, includeAdds := range []bool{false, true} {
		for _, sc := range scripts {
			t.Run(fmt.Sprintf("%s/includeAdds=%v", sc.name, includeAdds), func(t *testing.T) {
				logger := klog.Background()
				cgIdx := cgcache.NewIndexer(cgcache.MetaNamespaceKeyFunc, cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
				foIdx := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
				cg := cgcache.NewIntegerResourceVersionMutationCache(logger, cgIdx, cgIdx, time.Hour, includeAdds)
				fo := informer.NewIntegerResourceVersionMutationCache(logger, foIdx, foIdx, time.Hour, includeAdds)
				for i, st := range sc.steps {
					require.Equal(t, st(cg, cgIdx), st(fo, foIdx), "step %d", i)
				}
			})
		}
	}
}

// TestMutationCacheOptionsMatchClientGo checks the options' defaults and
// limits the same way on both: a size bound evicts the oldest mutation,
// and ByIndex without an indexer fails.
func TestMutationCacheOptionsMatchClientGo(t *testing.T) {
	logger := klog.Background()
	cgStore, foStore := cgcache.NewStore(cgcache.MetaNamespaceKeyFunc), informer.NewStore(informer.MetaNamespaceKeyFunc)
	cg := cgcache.NewIntegerResourceVersionMutationCacheWithOptions(logger, cgStore, cgcache.MutationCacheOptions{IncludeAdds: true, MaxCacheSize: 2})
	fo := informer.NewIntegerResourceVersionMutationCacheWithOptions(logger, foStore, informer.MutationCacheOptions{IncludeAdds: true, MaxCacheSize: 2})
	for _, mc := range []mutationCacheLike{cg, fo} {
		for _, name := range []string{"a", "b", "c"} {
			mc.Mutation(mcPod(name, "u", "1"))
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		_, cgOK, _ := cg.GetByKey("ns/" + name)
		_, foOK, _ := fo.GetByKey("ns/" + name)
		require.Equal(t, cgOK, foOK, name)
		require.Equal(t, name != "a", foOK, name)
	}
	_, cgErr := cg.ByIndex(cgcache.NamespaceIndex, "ns")
	_, foErr := fo.ByIndex(informer.NamespaceIndex, "ns")
	require.EqualError(t, foErr, cgErr.Error())
}
