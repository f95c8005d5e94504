package decode

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Clientset is a kubernetes.Interface whose typed group clients decode
// protobuf and JSON objects with fanout's decoders (see RESTClientFor):
// give it to an informer factory, and every informer it makes lists and
// watches through them. Discovery, and groups newer than the lowest supported
// client-go, are the embedded clientset's.
//
// As with RESTClientFor, objects from it share memory and must never be
// modified: use it for informers, not for reading objects to change and
// send back. Pair it with Wrap to leave managedFields out.
//
// Its List, for the resources every supported release has, decodes a
// list, protobuf or JSON, while the response streams: each item is
// decoded from a reused buffer as it arrives, so a list is never held as
// bytes and as objects at once. A body it does not follow, or one that does not
// decode, is requested again and decoded by client-go's path, whose
// result or error stands. (RESTClientFor's clients, wrapped by a typed
// client's New, decode a list once it has arrived whole.)
type Clientset struct {
	*kubernetes.Clientset
	groups leanGroups
}

// NewClientset returns a Clientset for cfg. Each group client gets its
// decoder's tables when it first decodes.
func NewClientset(cfg *rest.Config) (*Clientset, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	std, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	g, err := newLeanGroups(std, func(rc rest.Interface) (*rest.RESTClient, error) {
		return restClientFor(cfg, rc.APIVersion(), hc)
	})
	if err != nil {
		return nil, err
	}
	return &Clientset{Clientset: std, groups: g}, nil
}
