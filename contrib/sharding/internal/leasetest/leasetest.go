// Package leasetest is the fake Lease API the sharding tests run rings
// on, with the ring timings they use.
package leasetest

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// API is client-go's fake clientset with what the fake tracker lacks
// and the claims rely on: Leases get a resourceVersion on every write, and
// an Update whose resourceVersion is not the stored one fails with a
// Conflict, as the apiserver does. SetFailWrites makes lease writes fail
// (an unreachable apiserver).
type API struct {
	*fake.Clientset
	mu         sync.Mutex
	rv         int
	failWrites bool
}

// NewAPI returns an empty fake Lease API.
func NewAPI() *API {
	f := &API{Clientset: fake.NewClientset()}
	f.PrependReactor("create", "leases", f.write)
	f.PrependReactor("update", "leases", f.write)
	return f
}

// SetFailWrites makes every later Lease write fail (fail true) or succeed.
func (f *API) SetFailWrites(fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failWrites = fail
}

func (f *API) write(action k8stesting.Action) (bool, runtime.Object, error) {
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

// RingConfig has the fields of the sharding ring's Config, in order, so
// that a RingConfig converts to one (this package cannot import it: the
// ring's own tests use this package).
type RingConfig struct {
	Client        coordinationv1client.LeasesGetter
	Namespace     string
	Ring          string
	Identity      string
	Ranges        int
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	Clock         clock.Clock
}

// Config is a ring on api with small, fake-clock timings: lease 10 s,
// renew deadline 5 s, retry 2 s.
func Config(api *API, clk *clocktesting.FakeClock, identity string, ranges int) RingConfig {
	return RingConfig{
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

// SettleRing lets the replicas of a ring driven by clk (Config's
// timings) run twelve retry periods inside a synctest bubble: enough to
// join, assign, claim or release, and list.
func SettleRing(clk *clocktesting.FakeClock) {
	for range 12 {
		synctest.Wait()
		clk.Step(2 * time.Second)
	}
	synctest.Wait()
}

// RandomUID returns a random UID in the apiserver's format, drawn from rng.
func RandomUID(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[rng.IntN(16)]
		}
	}
	return string(b)
}
