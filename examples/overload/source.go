package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kfanout/fanout/examples/overload/demo"
	"github.com/kfanout/fanout/internal/fakelw"
)

const (
	namespace = "demo"
	// compactEvery is how many updates the source keeps in its watch
	// history; it forgets older ones so that its own memory stays flat.
	compactEvery = 1024
	// tick is the producer's pacing interval.
	tick = 5 * time.Millisecond
)

// source is the simulated API server: a fakelw.Source holding the objects
// and a producer that updates them round robin at a steady rate. It is the
// demo.Source of `make demo`.
type source struct {
	*fakelw.Source
	objects int
	payload string

	produced atomic.Uint64
	// latest is each object's newest resourceVersion; written only by the
	// producer, read after it has stopped.
	latest map[string]int
}

func objectName(i int) string { return fmt.Sprintf("cm-%05d", i) }

// newDemoSource is the demo.NewSourceFunc of the simulated source.
func newDemoSource(_ context.Context, cfg demo.Config) (demo.Source, error) {
	return newSource(cfg.Objects, cfg.Payload), nil
}

// newSource creates the objects at their first version.
func newSource(objects, payload int) *source {
	s := &source{
		Source:  fakelw.New(&corev1.ConfigMap{}),
		objects: objects,
		payload: strings.Repeat("x", payload),
		latest:  make(map[string]int, objects),
	}
	for i := range objects {
		s.write(i, 0, s.Add)
	}
	s.Compact()
	return s
}

// write stores version v of object i through store (the source's Add or
// Modify). Each version gets its own payload string, as a decoded object
// from a real API server would.
func (s *source) write(i int, v uint64, store func(obj runtime.Object) runtime.Object) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: objectName(i)},
		Data:       map[string]string{"value": strconv.FormatUint(v, 10) + ":" + s.payload},
	}
	stored := store(cm).(*corev1.ConfigMap)
	rv, _ := strconv.Atoi(stored.ResourceVersion)
	s.latest[cm.Name] = rv
}

// Watching reports whether the informer has a watch open.
func (s *source) Watching() bool { return s.OpenWatches() > 0 }

// Produced returns how many updates Produce has made.
func (s *source) Produced() uint64 { return s.produced.Load() }

// Latest returns each object's newest resourceVersion; call it only after
// Produce has returned.
func (s *source) Latest(context.Context) (map[string]int, error) { return s.latest, nil }

// Produce updates objects round robin at rate updates per second until ctx
// is done. It holds back while the informer has not yet received more than
// maxLag of its updates (received reports how many it has), so that the
// simulated server's own watch queue stays short: the memory the demo
// measures is the informer's.
func (s *source) Produce(ctx context.Context, rate int, maxLag uint64, received func() uint64) {
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	var n uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		target := uint64(time.Since(start).Seconds() * float64(rate))
		for n < target && n-received() < maxLag {
			s.write(int(n%uint64(s.objects)), n+1, s.Modify)
			n++
			s.produced.Store(n)
			if n%compactEvery == 0 {
				s.Compact()
			}
		}
	}
}
