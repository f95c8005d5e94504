package informer

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/klog/v2"
)

// mutationDetectionEnabled is read once, from the variable client-go reads.
var mutationDetectionEnabled, _ = strconv.ParseBool(os.Getenv("KUBE_CACHE_MUTATION_DETECTOR"))

// MutationDetector watches cached objects for changes made by their
// readers, which must treat them as read-only. It is a debugging aid.
type MutationDetector interface {
	// AddObject records a deep copy of obj, to be compared with obj from
	// now on.
	AddObject(obj any)

	// Run compares the objects periodically and returns once stopCh is
	// closed.
	Run(stopCh <-chan struct{})
}

// NewCacheMutationDetector returns a MutationDetector named name. Unless
// the environment variable KUBE_CACHE_MUTATION_DETECTOR is true when the
// process starts, it does nothing: AddObject keeps nothing and Run returns
// at once.
//
// When enabled it keeps a copy of every object it is given (memory grows
// with the number of writes, for about two minutes per object) and,
// once a second, panics with the name and a diff if an object changed: a
// mutated cache cannot be trusted, so the failure is meant to be loud.
func NewCacheMutationDetector(name string) MutationDetector {
	if !mutationDetectionEnabled {
		return noopMutationDetector{}
	}
	klog.Background().Info("Warning: the cache mutation detector is enabled; it keeps a copy of every cached object", "name", name)
	return newMutationDetector(name)
}

func newMutationDetector(name string) *cacheMutationDetector {
	return &cacheMutationDetector{name: name, period: time.Second, retainDuration: 2 * time.Minute}
}

type noopMutationDetector struct{}

func (noopMutationDetector) Run(<-chan struct{}) {}
func (noopMutationDetector) AddObject(any)       {}

// cacheMutationDetector compares cached objects with copies taken when
// they were added. Objects move from added to current on each comparison;
// every retainDuration, current becomes retained and the older retained
// objects are forgotten, so each object is watched for one to two
// retainDurations.
type cacheMutationDetector struct {
	name           string
	period         time.Duration
	retainDuration time.Duration
	// onMutation, if set, is called instead of panicking (tests).
	onMutation func(message string)

	addedMu sync.Mutex // guards added; AddObject only waits for it
	added   []copiedObject

	compareMu   sync.Mutex // guards the fields below; one comparison at a time
	current     []copiedObject
	retained    []copiedObject
	lastRotated time.Time
}

// copiedObject is a cached object and the copy it must keep matching.
type copiedObject struct {
	cached, copied runtime.Object
}

// Run compares every period until stopCh is closed; it runs on the
// caller's goroutine.
func (d *cacheMutationDetector) Run(stopCh <-chan struct{}) {
	ticker := time.NewTicker(d.period)
	defer ticker.Stop()
	for {
		d.rotate(time.Now())
		d.CompareObjects()
		select {
		case <-stopCh:
			return
		case <-ticker.C:
		}
	}
}

// rotate forgets the oldest objects once retainDuration has passed.
func (d *cacheMutationDetector) rotate(now time.Time) {
	d.compareMu.Lock()
	defer d.compareMu.Unlock()
	switch {
	case d.lastRotated.IsZero():
		d.lastRotated = now
	case now.Sub(d.lastRotated) > d.retainDuration:
		d.retained, d.current = d.current, nil
		d.lastRotated = now
	}
}

// AddObject records a deep copy of obj if it is a runtime.Object;
// tombstones and other values are ignored.
func (d *cacheMutationDetector) AddObject(obj any) {
	if _, ok := obj.(DeletedFinalStateUnknown); ok {
		return
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	c := copiedObject{cached: ro, copied: ro.DeepCopyObject()}
	d.addedMu.Lock()
	d.added = append(d.added, c)
	d.addedMu.Unlock()
}

// CompareObjects compares every watched object with its copy and fails
// (panics, or calls onMutation) if one changed.
func (d *cacheMutationDetector) CompareObjects() {
	d.compareMu.Lock()
	d.addedMu.Lock()
	d.current = append(d.current, d.added...)
	d.added = nil
	d.addedMu.Unlock()

	var reports []string
	for _, set := range [][]copiedObject{d.current, d.retained} {
		for i, obj := range set {
			if !reflect.DeepEqual(obj.cached, obj.copied) {
				reports = append(reports, fmt.Sprintf("CACHE %s[%d] ALTERED!\n%s", d.name, i, diff.Diff(obj.copied, obj.cached)))
			}
		}
	}
	d.compareMu.Unlock()

	if len(reports) == 0 {
		return
	}
	logger := klog.Background()
	for _, r := range reports {
		logger.Error(nil, "Cached object was modified", "detector", d.name, "report", r)
	}
	msg := fmt.Sprintf("cache %s modified", d.name)
	if d.onMutation != nil {
		d.onMutation(msg)
		return
	}
	panic(msg)
}
