package informer

import (
	"context"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/features"
)

// slowStopLister watches through a fake source but lists slowly: a list
// sees its context done and then takes until release is closed to return,
// as a client that unwinds a request does. It refuses watch-list requests
// with an error that makes the reflector fall back to a list.
type slowStopLister struct {
	*fakelw.Source
	listing    chan struct{} // closed when the first list starts
	release    chan struct{}
	returned   chan struct{} // closed when that list returns
	watchLists int           // watch-list requests refused
}

func (l *slowStopLister) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if options.SendInitialEvents != nil {
		l.watchLists++
		return nil, apierrors.NewBadRequest("no watch-list here")
	}
	return l.Source.WatchWithContext(ctx, options)
}

func (l *slowStopLister) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), options)
}

func (l *slowStopLister) ListWithContext(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	close(l.listing)
	defer close(l.returned)
	<-ctx.Done()
	<-l.release
	return nil, ctx.Err()
}

func (l *slowStopLister) List(options metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), options)
}

// RunWithContext returns only after the list it started has returned, with
// the watch-list client feature off (a plain list) and on (the list after
// a watch-list the server does not support).
func TestReflectorRunWaitsForItsList(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		name := map[bool]string{false: "list", true: "watch-list fallback"}[watchList]
		t.Run(name, func(t *testing.T) {
			defer features.SetForTesting(features.WatchListClient, watchList)()
			synctest.Test(t, func(t *testing.T) {
				lw := &slowStopLister{Source: fakelw.New(&corev1.Pod{}), listing: make(chan struct{}), release: make(chan struct{}), returned: make(chan struct{})}
				lw.SetWatchListSupported(true)
				r := newTestReflector(lw, &recordingStore{}, ReflectorOptions{})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					r.RunWithContext(ctx)
				}()
				<-lw.listing
				cancel()
				if want := map[bool]int{false: 0, true: 1}[watchList]; lw.watchLists != want {
					close(lw.release)
					t.Fatalf("%d watch-list requests before the list, want %d", lw.watchLists, want)
				}
				synctest.Wait()
				if isDone(done) {
					close(lw.release)
					t.Fatal("RunWithContext returned while its list was still running")
				}
				close(lw.release)
				synctest.Wait()
				if !isDone(done) || !isDone(lw.returned) {
					t.Fatalf("after the list returned: RunWithContext returned %v, list returned %v; want both", isDone(done), isDone(lw.returned))
				}
			})
		})
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
