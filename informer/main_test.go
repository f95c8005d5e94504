package informer

import (
	"context"
	"testing"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
//
// It also replaces apimachinery's error handlers with plain logging: their
// rate limiter remembers the real time of the last error and, inside a
// synctest bubble (whose clock starts in 2000), computes a sleep of
// decades.
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
		func(ctx context.Context, err error, msg string, keysAndValues ...any) {
			klog.FromContext(ctx).Error(err, msg, keysAndValues...)
		},
	}
	goleak.VerifyTestMain(m)
}
