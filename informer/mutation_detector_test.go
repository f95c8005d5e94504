package informer

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMutationDetectorDisabledByDefault(t *testing.T) {
	if mutationDetectionEnabled {
		t.Skip("KUBE_CACHE_MUTATION_DETECTOR is set")
	}
	d := NewCacheMutationDetector("pods")
	assert.Equal(t, noopMutationDetector{}, d)
	d.AddObject(storePod("ns", "a", "1", nil))
	stop := make(chan struct{})
	d.Run(stop) // returns at once
}

func TestMutationDetector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var failures []string
		d := newMutationDetector("pods")
		d.onMutation = func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, msg)
		}
		failuresNow := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string{}, failures...)
		}

		pod := storePod("ns", "a", "1", map[string]string{"app": "web"})
		d.AddObject(pod)
		d.AddObject(DeletedFinalStateUnknown{Key: "ns/b", Obj: storePod("ns", "b", "", nil)})
		d.AddObject("not an object")

		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { d.Run(stop) })

		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Empty(t, failuresNow(), "nothing changed yet")

		// A reader mutates the cached object. (Holding compareMu only keeps
		// the race detector quiet: real mutations race by nature.)
		d.compareMu.Lock()
		pod.Labels["app"] = "db"
		d.compareMu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"cache pods modified"}, failuresNow())

		close(stop)
		wg.Wait() // Run returns once stop is closed
	})
}

func TestMutationDetectorForgetsOldObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var failures int
		d := newMutationDetector("pods")
		d.onMutation = func(string) { failures++ }

		pod := storePod("ns", "a", "1", nil)
		d.AddObject(pod)
		start := time.Now()
		d.rotate(start)
		d.CompareObjects()
		d.rotate(start.Add(d.retainDuration + time.Second)) // current -> retained
		d.rotate(start.Add(2*d.retainDuration + 2*time.Second))
		pod.Name = "changed"
		d.CompareObjects()
		assert.Equal(t, 0, failures, "an object is forgotten after two rotations")
	})
}

func TestMutationDetectorPanicsWithoutHook(t *testing.T) {
	d := newMutationDetector("pods")
	pod := storePod("ns", "a", "1", nil)
	d.AddObject(pod)
	pod.Name = "changed"
	assert.PanicsWithValue(t, "cache pods modified", d.CompareObjects)
}
