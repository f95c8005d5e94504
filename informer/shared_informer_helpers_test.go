package informer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/internal/fakelw"

	"github.com/kfanout/fanout/internal/testutil"
)

// siPod returns a pod in namespace "ns" with a label.
func siPod(name string, labels ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if len(labels) > 0 {
		p.Labels = map[string]string{"l": labels[0]}
	}
	return p
}

// siDesc renders an object handed to a handler.
func siDesc(obj any) string {
	switch o := obj.(type) {
	case *corev1.Pod:
		s := o.Namespace + "/" + o.Name + "@" + o.ResourceVersion
		if o.Labels["l"] != "" {
			s += "[" + o.Labels["l"] + "]"
		}
		return s
	case DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + "," + siDesc(o.Obj) + ")"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", obj)
}

// siRecorder records handler calls in order.
type siRecorder struct {
	mu    sync.Mutex
	calls []string
	// block, when set, is received from before every call returns.
	block chan struct{}
}

func (r *siRecorder) rec(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
	if r.block != nil {
		<-r.block
	}
}

func (r *siRecorder) OnAdd(obj any, initial bool) {
	r.rec(fmt.Sprintf("add %s initial=%v", siDesc(obj), initial))
}
func (r *siRecorder) OnUpdate(o, n any) { r.rec("update " + siDesc(o) + " -> " + siDesc(n)) }
func (r *siRecorder) OnDelete(obj any)  { r.rec("delete " + siDesc(obj)) }

// take returns and forgets the calls recorded so far.
func (r *siRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// siRun starts inf in the bubble and returns a stop function that waits for
// Run to return.
func siRun(t *testing.T, inf SharedIndexInformer) (stop func()) {
	t.Helper()
	return testutil.Start(context.Background(), inf.RunWithContext)
}

// siSetup returns a source with pods a and b, and an informer on it.
func siSetup(opts SharedIndexInformerOptions) (*fakelw.Source, SharedIndexInformer) {
	src := fakelw.New(&corev1.Pod{})
	src.Add(siPod("a"))
	src.Add(siPod("b"))
	return src, NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, opts)
}

// inBubble runs f in a synctest bubble for each queue mode: the
// DeltaFIFO (InOrder set to false) and the default RealFIFO.
func inBubble(t *testing.T, f func(t *testing.T, inOrder bool)) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "RealFIFO"}[inOrder], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, inOrder) })
		})
	}
}

// queueOption is the InOrder option of a queue mode: a pointer to false
// for the DeltaFIFO, nil (the default, in order) for RealFIFO.
func queueOption(inOrder bool) *bool {
	if inOrder {
		return nil
	}
	return &inOrder
}
