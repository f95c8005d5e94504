package informer

import (
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// handlerLogger is the logger of a handler added with options: the one
// options.Logger points to, klog.Background() if it is nil. A logger
// without sink, such as logr.Discard(), is kept silent as in client-go:
// it becomes one whose sink drops everything, because the listener takes
// a zero Logger for unset.
func handlerLogger(options HandlerOptions) klog.Logger {
	if options.Logger == nil {
		return klog.Background()
	}
	if options.Logger.GetSink() == nil {
		return logr.New(discardSink{})
	}
	return *options.Logger
}

// discardSink is a logr.LogSink that is never enabled and drops what it
// is given.
type discardSink struct{}

func (discardSink) Init(logr.RuntimeInfo)            {}
func (discardSink) Enabled(int) bool                 { return false }
func (discardSink) Info(int, string, ...any)         {}
func (discardSink) Error(error, string, ...any)      {}
func (s discardSink) WithValues(...any) logr.LogSink { return s }
func (s discardSink) WithName(string) logr.LogSink   { return s }
