package informers

import (
	"context"
	"fmt"
	"reflect"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// InformerRemover is implemented by this package's factories:
//
//	err := f.(informers.InformerRemover).RemoveInformer(ctx, &corev1.Pod{})
//
// RemoveInformer stops the informer of obj's type, waits until it has
// stopped (or ctx ends) and drops it, so that the next Informer() (or
// InformerFor, ForResource) of the type returns a fresh informer, which
// the next Start starts; its reflector and watch stop, its handlers'
// goroutines end and its metrics series are released. Code still holding
// the removed informer sees a stopped informer: Run logs and returns,
// AddEventHandler fails. For a type the factory holds no informer of it
// returns an error wrapping clientgo.ErrInformerNotHeld and changes
// nothing. An informer stopped by its own Shutdown (reached with
// clientgo.FanoutInformer) is dropped too.
type InformerRemover interface {
	RemoveInformer(ctx context.Context, obj k8sruntime.Object) error
}

var _ InformerRemover = (*factory)(nil)

// RemoveInformer stops and drops the informer of obj's type (see
// InformerRemover).
func (f *factory) RemoveInformer(ctx context.Context, obj k8sruntime.Object) error {
	t := reflect.TypeOf(obj)
	f.mu.Lock()
	f.pruneLocked()
	e, ok := f.informers[t]
	if !ok {
		f.mu.Unlock()
		return fmt.Errorf("%w: %v", clientgo.ErrInformerNotHeld, t)
	}
	fi, fanout := clientgo.FanoutInformer(e.inf)
	if !fanout && e.inf != nil {
		f.mu.Unlock()
		return fmt.Errorf("informers: the informer of %v is %T, not fanout's, and cannot be stopped alone", t, e.inf)
	}
	f.dropLocked(t, e)
	f.mu.Unlock()
	if e.inf == nil {
		return nil
	}
	return fi.Shutdown(ctx)
}
