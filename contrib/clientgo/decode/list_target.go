package decode

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// listTarget receives what the transport made of one streamed list
// response. It is written while client-go reads the body and read after
// the typed client's List returns, in the goroutine that called List.
type listTarget struct {
	into     runtime.Object // a zero value of the list type asked for
	obj      runtime.Object // the list, decoded as it streamed
	fallback bool           // the body was left to client-go's decoder
}

type listTargetKey struct{}

// listTargetFrom returns the target ctx holds, or nil.
func listTargetFrom(ctx context.Context) *listTarget {
	t, _ := ctx.Value(listTargetKey{}).(*listTarget)
	return t
}

// streamList calls a typed client's List with a context that asks the
// lean client's transport to decode the list (protobuf or JSON) while it streams,
// and returns that list. The typed client itself (its watch-list and
// retry logic, its errors) is client-go's. Where the streamed decode
// leaves the body to client-go's decoder (input it does not follow, or
// that does not decode), the list is requested again without streaming,
// so that what is returned, or the error, is client-go's.
func streamList[L runtime.Object](ctx context.Context, opts metav1.ListOptions, list func(context.Context, metav1.ListOptions) (L, error)) (L, error) {
	t := &listTarget{into: reflect.New(reflect.TypeFor[L]().Elem()).Interface().(runtime.Object)}
	l, err := list(context.WithValue(ctx, listTargetKey{}, t), opts)
	if t.fallback {
		return list(ctx, opts)
	}
	if err != nil || t.obj == nil {
		return l, err
	}
	if s, ok := t.obj.(L); ok {
		return s, nil
	}
	return list(ctx, opts)
}
