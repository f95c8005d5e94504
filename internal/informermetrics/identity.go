// Package informermetrics holds the identity of an informer in metrics and
// the metric interfaces that client-go's informer metrics provider uses.
// The informer and deltafifo packages re-export everything here.
package informermetrics

import (
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// registry holds every InformerName that is currently reserved.
var registry = struct {
	mu    sync.Mutex
	names map[string]*InformerName
}{names: map[string]*InformerName{}}

// InformerName is a process-wide unique informer name. Metrics are only
// published for informers whose name is reserved, so that two informers
// never write the same series.
type InformerName struct {
	name string

	mu       sync.Mutex // guards gvrs
	reserved *atomic.Bool
	gvrs     map[schema.GroupVersionResource]*atomic.Bool
}

// NewInformerName reserves name. It fails for an empty name and for a name
// that is already reserved and not released.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, fmt.Errorf("informer name cannot be empty")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if old, ok := registry.names[name]; ok && old.reserved.Load() {
		return nil, fmt.Errorf("informer name %q is already registered", name)
	}
	n := &InformerName{name: name, reserved: &atomic.Bool{}, gvrs: map[schema.GroupVersionResource]*atomic.Bool{}}
	n.reserved.Store(true)
	registry.names[name] = n
	return n, nil
}

// WithResource returns the identity of this name for one resource. The
// first identity per resource is reserved; a duplicate is logged and is not.
// A nil InformerName gives an identity that is never reserved.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{gvr: gvr}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	id := InformerNameAndResource{name: n.name, gvr: gvr, reserved: &atomic.Bool{}}
	if !n.reserved.Load() {
		return id
	}
	if _, dup := n.gvrs[gvr]; dup {
		klog.TODO().Error(nil, "Duplicate informer registration - metrics will not be published",
			"informerName", n.name, "group", gvr.Group, "version", gvr.Version, "resource", gvr.Resource)
		return id
	}
	id.reserved.Store(true)
	n.gvrs[gvr] = id.reserved
	return id
}

// Release frees the name and every identity derived from it.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.mu.Lock()
	for _, r := range n.gvrs {
		r.Store(false)
	}
	n.gvrs = map[schema.GroupVersionResource]*atomic.Bool{}
	n.reserved.Store(false)
	n.mu.Unlock()

	registry.mu.Lock()
	if registry.names[n.name] == n {
		delete(registry.names, n.name)
	}
	registry.mu.Unlock()
}

// Name returns the name, or "" for nil.
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// InformerNameAndResource identifies one informer in metrics. Its zero value
// is valid and means "publish no metrics".
type InformerNameAndResource struct {
	name     string
	gvr      schema.GroupVersionResource
	reserved *atomic.Bool
}

// Reserved reports whether metrics may be published for this identity.
func (n InformerNameAndResource) Reserved() bool { return n.reserved != nil && n.reserved.Load() }

// Name returns the informer name.
func (n InformerNameAndResource) Name() string { return n.name }

// GroupVersionResource returns the resource.
func (n InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource { return n.gvr }

// ResetInformerNamesForTesting releases every reserved name.
func ResetInformerNamesForTesting() {
	registry.mu.Lock()
	all := make([]*InformerName, 0, len(registry.names))
	for _, n := range registry.names {
		all = append(all, n)
	}
	registry.mu.Unlock()
	for _, n := range all {
		n.Release()
	}
}
