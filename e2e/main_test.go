package e2e

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	// Reflector warnings during the fault tests are expected; keep the
	// output to what the tests say.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", "0")
	_ = fs.Set("stderrthreshold", "ERROR")
	goleak.VerifyTestMain(m, harnessGoroutines()...)
}

// harnessGoroutines are the goroutines a leak check ignores: klog's flush
// daemon and the idle keep-alive connections of the shared HTTP
// transports.
func harnessGoroutines() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("golang.org/x/net/http2.(*ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*clientConnReadLoop).run"),
	}
}
