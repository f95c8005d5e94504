package informer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

// TestWaitForLogsCallerLine checks that WaitFor's lines name its caller's
// file:line as their source, as client-go's TestWaitFor expects.
func TestWaitForLogsCallerLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf)))
		ctx := klog.NewContext(context.Background(), logger)
		done := make(chan struct{})
		close(done)
		_, _, line, _ := runtime.Caller(0)
		require.True(t, WaitFor(ctx, "my-caches", doneChecker{"first", done}))
		want := fmt.Sprintf(`I0101 00:00:00.000000 %7[1]d wait_log_test.go:%[2]d] "Waiting" for="my-caches"
I0101 00:00:00.000000 %7[1]d wait_log_test.go:%[2]d] "Done waiting" for="my-caches" instance="first"
`, os.Getpid(), line+1)
		require.Equal(t, want, buf.String())
	})
}

// doneChecker is a DoneChecker with a fixed name and channel.
type doneChecker struct {
	name string
	done chan struct{}
}

func (c doneChecker) Name() string          { return c.name }
func (c doneChecker) Done() <-chan struct{} { return c.done }
