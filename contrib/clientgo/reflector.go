package clientgo

import (
	"context"
	"errors"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// errDescriptionOnly is what the ListerWatcher of a descriptive reflector
// returns, should anyone run one.
var errDescriptionOnly = errors.New("clientgo: this reflector only describes a fanout reflector to a watch error handler and cannot list or watch")

// reflectorViews gives client-go watch error handlers a *cache.Reflector
// that describes the fanout reflector which failed: the same Name() and
// TypeDescription(). client-go's DefaultWatchErrorHandler reads both, so a
// nil reflector would crash it. The view is never started; it is made once
// per fanout reflector (a new one per informer run) and reused.
type reflectorViews struct {
	mu     sync.Mutex // guards the fields below
	source *informer.Reflector
	view   *cache.Reflector
}

// of returns the client-go view of r, or nil for a nil r.
func (v *reflectorViews) of(r *informer.Reflector) *cache.Reflector {
	if r == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.source != r {
		v.source = r
		v.view = cache.NewReflectorWithOptions(descriptionOnly{}, nil, nil, cache.ReflectorOptions{
			Name:            r.Name(),
			TypeDescription: r.TypeDescription(),
		})
	}
	return v.view
}

// watchErrorHandler adapts a client-go handler to fanout's.
func (v *reflectorViews) watchErrorHandler(h cache.WatchErrorHandlerWithContext) informer.WatchErrorHandlerWithContext {
	return func(ctx context.Context, r *informer.Reflector, err error) { h(ctx, v.of(r), err) }
}

// descriptionOnly is the ListerWatcher of a descriptive reflector; it
// refuses to list or watch.
type descriptionOnly struct{}

// List refuses.
func (descriptionOnly) List(metav1.ListOptions) (runtime.Object, error) {
	return nil, errDescriptionOnly
}

// Watch refuses.
func (descriptionOnly) Watch(metav1.ListOptions) (watch.Interface, error) {
	return nil, errDescriptionOnly
}
