package informer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Getter starts a GET request. client-go's *rest.RESTClient satisfies it
// with R = *rest.Request. client-go's own Getter is not generic; this one
// is, so that fanout need not import client-go.
type Getter[R any] interface {
	Get() R
}

// ListWatchRequest is the part of client-go's *rest.Request that
// NewFilteredListWatchFromClient uses. Each builder method returns the
// request again.
type ListWatchRequest[R any, Res ListWatchResult] interface {
	Namespace(namespace string) R
	Resource(resource string) R
	VersionedParams(obj runtime.Object, codec runtime.ParameterCodec) R
	Watch(ctx context.Context) (watch.Interface, error)
	Do(ctx context.Context) Res
}

// ListWatchResult is the part of client-go's rest.Result that a list
// needs.
type ListWatchResult interface {
	Get() (runtime.Object, error)
}

// NewListWatchFromClient returns a ListWatch that lists and watches
// resource in namespace (all namespaces if "") with the given field
// selector, through a REST client such as client-go's *rest.RESTClient:
//
//	lw := informer.NewListWatchFromClient(clientset.CoreV1().RESTClient(), "pods", ns, fields.Everything())
//
// The type parameters are inferred from the client. All four function
// fields are set.
func NewListWatchFromClient[R ListWatchRequest[R, Res], Res ListWatchResult](c Getter[R], resource, namespace string, fieldSelector fields.Selector) *ListWatch {
	selector := fieldSelector.String()
	return NewFilteredListWatchFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = selector
	})
}

// NewFilteredListWatchFromClient returns a ListWatch that lists and watches
// resource in namespace (all namespaces if "") through a REST client such
// as client-go's *rest.RESTClient. optionsModifier edits the options of
// every request, for example to set a label selector. All four function
// fields are set; the context-free ones use context.Background().
func NewFilteredListWatchFromClient[R ListWatchRequest[R, Res], Res ListWatchResult](c Getter[R], resource, namespace string, optionsModifier func(options *metav1.ListOptions)) *ListWatch {
	request := func(options *metav1.ListOptions) R {
		optionsModifier(options)
		return c.Get().
			Namespace(namespace).
			Resource(resource).
			VersionedParams(options, metav1.ParameterCodec)
	}
	list := func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		return request(&options).Do(ctx).Get()
	}
	watchFn := func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
		options.Watch = true
		return request(&options).Watch(ctx)
	}
	return &ListWatch{
		ListFunc: func(options metav1.ListOptions) (runtime.Object, error) {
			return list(context.Background(), options)
		},
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			return watchFn(context.Background(), options)
		},
		ListWithContextFunc:  list,
		WatchFuncWithContext: watchFn,
	}
}
