package sharding

import (
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeAPI is client-go's fake clientset with what the fake tracker lacks
// and the claims rely on: Leases get a resourceVersion on every write, and
// an Update whose resourceVersion is not the stored one fails with a
// Conflict, as the apiserver does. failWrites makes lease writes fail (an
// unreachable apiserver).
type fakeAPI struct {
	*fake.Clientset
	mu         sync.Mutex
	rv         int
	failWrites bool
}

func newFakeAPI() *fakeAPI {
	f := &fakeAPI{Clientset: fake.NewClientset()}
	f.PrependReactor("create", "leases", f.write)
	f.PrependReactor("update", "leases", f.write)
	return f
}

func (f *fakeAPI) setFailWrites(fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failWrites = fail
}

func (f *fakeAPI) write(action k8stesting.Action) (bool, runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failWrites {
		return true, nil, apierrors.NewServiceUnavailable("injected")
	}
	obj := action.(interface{ GetObject() runtime.Object }).GetObject().(*coordinationv1.Lease).DeepCopy()
	gvr := action.GetResource()
	existing, err := f.Tracker().Get(gvr, obj.Namespace, obj.Name)
	switch action.GetVerb() {
	case "create":
		if err == nil {
			return true, nil, apierrors.NewAlreadyExists(gvr.GroupResource(), obj.Name)
		}
	case "update":
		if err != nil {
			return true, nil, err
		}
		if cur := existing.(*coordinationv1.Lease); cur.ResourceVersion != obj.ResourceVersion {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), obj.Name, nil)
		}
	}
	f.rv++
	obj.ResourceVersion = strconv.Itoa(f.rv)
	if action.GetVerb() == "create" {
		err = f.Tracker().Create(gvr, obj, obj.Namespace)
	} else {
		err = f.Tracker().Update(gvr, obj, obj.Namespace)
	}
	if err != nil {
		return true, nil, err
	}
	return true, obj.DeepCopy(), nil
}

// testConfig is a ring on api with small, fake-clock timings: lease 10 s,
// renew deadline 5 s, retry 2 s.
func testConfig(api *fakeAPI, clk *clocktesting.FakeClock, identity string, ranges int) Config {
	return Config{
		Client:        api.CoordinationV1(),
		Namespace:     "ns",
		Ring:          "ring",
		Identity:      identity,
		Ranges:        ranges,
		LeaseDuration: 10 * time.Second,
		RenewDeadline: 5 * time.Second,
		RetryPeriod:   2 * time.Second,
		Clock:         clk,
	}
}

// settleRing lets the replicas of a ring driven by clk (testConfig's
// timings) run twelve retry periods inside a synctest bubble: enough to
// join, assign, claim or release, and list.
func settleRing(clk *clocktesting.FakeClock) {
	for range 12 {
		synctest.Wait()
		clk.Step(2 * time.Second)
	}
	synctest.Wait()
}

// assertPartition checks that two replicas' sorted object names a and b
// are both non-empty and together are all (sorted), each name once.
func assertPartition(t *testing.T, all, a, b []string) {
	t.Helper()
	assert.NotEmpty(t, a)
	assert.NotEmpty(t, b)
	union := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
	assert.Equal(t, all, union, "the replicas partition the objects, none served twice")
}
