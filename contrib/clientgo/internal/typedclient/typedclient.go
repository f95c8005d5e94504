// Package typedclient finds the typed client of a built-in object type in
// a generated clientset (k8s.io/client-go/kubernetes.Interface, real or
// fake) through the clientset's exported methods alone: a group-version
// method without arguments (AppsV1) returning a client with a resource
// method (Deployments(namespace) or, cluster-scoped, Nodes()) whose Get
// returns the object type. The generated clientset has had this shape in
// every release, so fanout's typed factory serves exactly the resources of
// the linked client-go without naming any of them, and without reading any
// unexported field.
package typedclient

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Resource is the typed client of one object type, found by Find.
type Resource struct {
	// groupVersion and resource are the method names, such as AppsV1 and
	// Deployments.
	groupVersion, resource string
	// Namespaced is true when the resource method takes a namespace.
	Namespaced bool
}

// key identifies a lookup: the clientset's type and the object's type.
type key struct{ client, object reflect.Type }

// found caches Find's results by key; values are *Resource or error.
var found sync.Map

var (
	contextType     = reflect.TypeFor[context.Context]()
	stringType      = reflect.TypeFor[string]()
	getOptionsType  = reflect.TypeFor[metav1.GetOptions]()
	listOptionsType = reflect.TypeFor[metav1.ListOptions]()
	watchType       = reflect.TypeFor[watch.Interface]()
	errorType       = reflect.TypeFor[error]()
)

// Find returns the typed client of obj's type in client. It fails when
// client is nil or has no such client.
func Find(client any, obj runtime.Object) (*Resource, error) {
	if client == nil || reflect.ValueOf(client).Kind() == reflect.Pointer && reflect.ValueOf(client).IsNil() {
		return nil, fmt.Errorf("no client to list and watch %T", obj)
	}
	k := key{reflect.TypeOf(client), reflect.TypeOf(obj)}
	if v, ok := found.Load(k); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*Resource), nil
	}
	r, err := find(k.client, k.object)
	if err != nil {
		found.Store(k, err)
		return nil, err
	}
	found.Store(k, r)
	return r, nil
}

// find walks the exported methods of the clientset type ct.
func find(ct, objType reflect.Type) (*Resource, error) {
	var matches []*Resource
	for i := range ct.NumMethod() {
		gv := ct.Method(i)
		// A method of a concrete type has the receiver as its first input.
		in := gv.Type.NumIn()
		if ct.Kind() != reflect.Interface {
			in--
		}
		if in != 0 || gv.Type.NumOut() != 1 || gv.Type.Out(0).Kind() != reflect.Interface {
			continue
		}
		gvClient := gv.Type.Out(0)
		for j := range gvClient.NumMethod() {
			res := gvClient.Method(j)
			namespaced := res.Type.NumIn() == 1 && res.Type.In(0) == stringType
			if (res.Type.NumIn() != 0 && !namespaced) || res.Type.NumOut() != 1 || res.Type.Out(0).Kind() != reflect.Interface {
				continue
			}
			if servesType(res.Type.Out(0), objType) {
				matches = append(matches, &Resource{groupVersion: gv.Name, resource: res.Name, Namespaced: namespaced})
			}
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("the clientset %v has no typed client of %v", ct, objType)
	case 1:
		return matches[0], nil
	default:
		return nil, fmt.Errorf("the clientset %v has %d typed clients of %v", ct, len(matches), objType)
	}
}

// servesType reports whether the typed client interface rt gets objType
// and lists and watches with client-go's signatures.
func servesType(rt, objType reflect.Type) bool {
	get, ok := rt.MethodByName("Get")
	if !ok || get.Type.NumIn() != 3 || get.Type.In(0) != contextType || get.Type.In(1) != stringType || get.Type.In(2) != getOptionsType ||
		get.Type.NumOut() != 2 || get.Type.Out(0) != objType || get.Type.Out(1) != errorType {
		return false
	}
	list, ok := rt.MethodByName("List")
	if !ok || !listWatchShape(list.Type) || !list.Type.Out(0).Implements(reflect.TypeFor[runtime.Object]()) {
		return false
	}
	w, ok := rt.MethodByName("Watch")
	return ok && listWatchShape(w.Type) && w.Type.Out(0) == watchType
}

// listWatchShape reports whether t is func(context.Context, metav1.ListOptions) (X, error).
func listWatchShape(t reflect.Type) bool {
	return t.NumIn() == 2 && t.In(0) == contextType && t.In(1) == listOptionsType && t.NumOut() == 2 && t.Out(1) == errorType
}

// In returns the typed client of r in client (of the type Find was given)
// and namespace, which is ignored for a cluster-scoped resource.
func (r *Resource) In(client any, namespace string) *Client {
	gv := reflect.ValueOf(client).MethodByName(r.groupVersion).Call(nil)[0]
	var args []reflect.Value
	if r.Namespaced {
		args = []reflect.Value{reflect.ValueOf(namespace)}
	}
	c := gv.MethodByName(r.resource).Call(args)[0]
	return &Client{list: c.MethodByName("List"), watch: c.MethodByName("Watch")}
}

// Client lists and watches one resource in one namespace (or all).
type Client struct {
	list, watch reflect.Value
}

// List lists the resource.
func (c *Client) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	out := c.list.Call([]reflect.Value{reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(opts)})
	err, _ := out[1].Interface().(error)
	if err != nil {
		return nil, err
	}
	obj, _ := out[0].Interface().(runtime.Object)
	return obj, nil
}

// Watch watches the resource.
func (c *Client) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	out := c.watch.Call([]reflect.Value{reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(opts)})
	err, _ := out[1].Interface().(error)
	if err != nil {
		return nil, err
	}
	w, _ := out[0].Interface().(watch.Interface)
	return w, nil
}
