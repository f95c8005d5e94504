package informer

import (
	"context"
	"fmt"
	"io"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// WatchErrorHandler is called whenever a reflector's ListAndWatch ends with
// an error; the reflector then backs off and tries again. It should return
// quickly.
type WatchErrorHandler func(r *Reflector, err error)

// WatchErrorHandlerWithContext is WatchErrorHandler with the reflector's
// context, for contextual logging. It should return quickly.
type WatchErrorHandlerWithContext func(ctx context.Context, r *Reflector, err error)

// DefaultWatchErrorHandler logs err at a level that fits it: an expired
// resource version at V(4), io.EOF (a normal close) not at all,
// io.ErrUnexpectedEOF at V(1), and anything else as an error
// ("Failed to watch").
func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	logger := klog.FromContext(ctx)
	switch {
	case isExpiredError(err):
		// The relist uses the last resource version, which is enough:
		// a list at an RV returns data at least that fresh.
		logger.V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "err", err)
	case err == io.EOF:
	case err == io.ErrUnexpectedEOF:
		logger.V(1).Info("Watch closed with unexpected EOF", "reflector", r.name, "type", r.typeDescription, "err", err)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to watch", "reflector", r.name, "type", r.typeDescription)
	}
}

// VeryShortWatchError is returned when a watch closed within one second
// without delivering a single event, which usually means the server is
// refusing it.
type VeryShortWatchError struct {
	// Name is the reflector's name.
	Name string
}

// Error implements error with client-go's message.
func (e *VeryShortWatchError) Error() string {
	return fmt.Sprintf("very short watch: %s: Unexpected watch close - watch lasted less than a second and no items received", e.Name)
}
