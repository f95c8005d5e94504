package informer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

type ctxKey struct{}

func TestListWatchPrefersItsOwnFlavour(t *testing.T) {
	var got []string
	lw := &ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) { got = append(got, "ListFunc"); return nil, nil },
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) {
			got = append(got, "WatchFunc")
			return nil, nil
		},
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			got = append(got, fmt.Sprint("ListWithContextFunc ", ctx.Value(ctxKey{})))
			return nil, nil
		},
		WatchFuncWithContext: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			got = append(got, fmt.Sprint("WatchFuncWithContext ", ctx.Value(ctxKey{})))
			return nil, nil
		},
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	_, _ = lw.List(metav1.ListOptions{})
	_, _ = lw.Watch(metav1.ListOptions{})
	_, _ = lw.ListWithContext(ctx, metav1.ListOptions{})
	_, _ = lw.WatchWithContext(ctx, metav1.ListOptions{})
	equalLines(t, "calls", got, []string{"ListFunc", "WatchFunc", "ListWithContextFunc v", "WatchFuncWithContext v"})
}

func TestListWatchFallsBack(t *testing.T) {
	var got []string
	legacy := &ListWatch{
		ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { got = append(got, "ListFunc"); return nil, nil },
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { got = append(got, "WatchFunc"); return nil, nil },
	}
	_, _ = legacy.ListWithContext(context.Background(), metav1.ListOptions{})
	_, _ = legacy.WatchWithContext(context.Background(), metav1.ListOptions{})
	modern := &ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			got = append(got, fmt.Sprint("ListWithContextFunc ", ctx != nil))
			return nil, nil
		},
		WatchFuncWithContext: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			got = append(got, fmt.Sprint("WatchFuncWithContext ", ctx != nil))
			return nil, nil
		},
	}
	_, _ = modern.List(metav1.ListOptions{})
	_, _ = modern.Watch(metav1.ListOptions{})
	equalLines(t, "calls", got, []string{"ListFunc", "WatchFunc", "ListWithContextFunc true", "WatchFuncWithContext true"})
}

// legacyLW implements only the context-free methods.
type legacyLW struct{ got *[]string }

func (l legacyLW) List(o metav1.ListOptions) (runtime.Object, error) {
	*l.got = append(*l.got, "List "+o.ResourceVersion)
	return nil, nil
}
func (l legacyLW) Watch(o metav1.ListOptions) (watch.Interface, error) {
	*l.got = append(*l.got, "Watch "+o.ResourceVersion)
	return nil, nil
}

func TestToListerWatcherWithContext(t *testing.T) {
	lw := &ListWatch{}
	if ToListerWatcherWithContext(lw) != ListerWatcherWithContext(lw) {
		t.Fatal("a ListerWatcherWithContext must be returned as is")
	}
	if ToListerWithContext(lw) != ListerWithContext(lw) || ToWatcherWithContext(lw) != WatcherWithContext(lw) {
		t.Fatal("a context-aware lister or watcher must be returned as is")
	}
	var got []string
	wrapped := ToListerWatcherWithContext(legacyLW{&got})
	_, _ = wrapped.ListWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	_, _ = wrapped.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "2"})
	equalLines(t, "calls", got, []string{"List 1", "Watch 2"})
}

// fakeClient, fakeRequest and fakeResult mimic client-go's RESTClient,
// Request and Result, recording the request each call builds.
type fakeClient struct{ log *[]string }

func (c fakeClient) Get() *fakeRequest { return &fakeRequest{log: c.log, parts: []string{"GET"}} }

type fakeRequest struct {
	log   *[]string
	parts []string
}

func (r *fakeRequest) Namespace(ns string) *fakeRequest {
	r.parts = append(r.parts, "ns="+ns)
	return r
}
func (r *fakeRequest) Resource(res string) *fakeRequest {
	r.parts = append(r.parts, "resource="+res)
	return r
}
func (r *fakeRequest) VersionedParams(obj runtime.Object, codec runtime.ParameterCodec) *fakeRequest {
	values, err := codec.EncodeParameters(obj, metav1.SchemeGroupVersion)
	if err != nil {
		r.parts = append(r.parts, "error="+err.Error())
		return r
	}
	r.parts = append(r.parts, values.Encode())
	return r
}
func (r *fakeRequest) Watch(context.Context) (watch.Interface, error) {
	*r.log = append(*r.log, strings.Join(append(r.parts, "watch"), " "))
	return watch.NewFake(), nil
}
func (r *fakeRequest) Do(context.Context) fakeResult {
	*r.log = append(*r.log, strings.Join(append(r.parts, "do"), " "))
	return fakeResult{}
}

type fakeResult struct{}

func (fakeResult) Get() (runtime.Object, error) { return &corev1.PodList{}, nil }

func TestNewListWatchFromClient(t *testing.T) {
	var log []string
	lw := NewListWatchFromClient(fakeClient{&log}, "pods", "ns1", fields.OneTermEqualSelector("spec.nodeName", "n1"))
	if _, err := lw.List(metav1.ListOptions{ResourceVersion: "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "5"}); err != nil {
		t.Fatal(err)
	}
	equalLines(t, "requests", log, []string{
		"GET ns=ns1 resource=pods fieldSelector=spec.nodeName%3Dn1&resourceVersion=0 do",
		"GET ns=ns1 resource=pods fieldSelector=spec.nodeName%3Dn1&resourceVersion=5&watch=true watch",
	})
	if lw.ListFunc == nil || lw.WatchFunc == nil || lw.ListWithContextFunc == nil || lw.WatchFuncWithContext == nil {
		t.Fatal("all four function fields must be set")
	}
}

func TestNewFilteredListWatchFromClient(t *testing.T) {
	var log []string
	lw := NewFilteredListWatchFromClient(fakeClient{&log}, "pods", "", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })
	_, _ = lw.ListWithContext(context.Background(), metav1.ListOptions{})
	_, _ = lw.Watch(metav1.ListOptions{})
	equalLines(t, "requests", log, []string{
		"GET ns= resource=pods labelSelector=app%3Dx do",
		"GET ns= resource=pods labelSelector=app%3Dx&watch=true watch",
	})
}
