package deltafifo

import "k8s.io/klog/v2"

// traceEnabled reports whether a slow-process trace would be logged:
// k8s.io/utils/trace logs only at klog verbosity 2 or more, so below it the
// queues do not time their process calls for the trace (a clock read costs
// about as much as the rest of a Pop).
func traceEnabled() bool { return klog.V(2).Enabled() }
