package parity

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/testutil"
)

// callLog records handler calls as strings.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// runInformer runs inf in the current bubble and returns a stop function
// that waits until Run has returned.
func runInformer(inf cache.SharedIndexInformer) (stop func()) {
	return testutil.Start(klog.NewContext(context.Background(), logr.Discard()), inf.RunWithContext)
}
