package decode

import (
	"mime"
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// ManagedFieldsPath is the path of metadata.managedFields.
var ManagedFieldsPath = []string{"metadata", "managedFields"}

// Options say which fields the decoder never sees.
type Options struct {
	// DropManagedFields leaves out metadata.managedFields, the
	// server-side-apply bookkeeping: often a third of an object and
	// rarely read by controllers.
	DropManagedFields bool
	// DropFields lists more fields to leave out, each as the JSON names
	// of its path from the object's root, as informer.DropFields takes
	// them: {"status", "conditions"}, or {"metadata", "annotations",
	// "kubectl.kubernetes.io/last-applied-configuration"} for one map
	// entry. A path steps through objects only (not lists); a map key
	// can be its last step.
	DropFields [][]string
	// Scheme maps the kinds of protobuf responses to Go types, whose
	// protobuf field numbers the filter reads; nil means client-go's
	// (every built-in kind). JSON needs no scheme.
	Scheme *runtime.Scheme
}

// paths returns every path o drops.
func (o Options) paths() [][]string {
	var ps [][]string
	if o.DropManagedFields {
		ps = append(ps, ManagedFieldsPath)
	}
	for _, p := range o.DropFields {
		if len(p) > 0 {
			ps = append(ps, slices.Clone(p))
		}
	}
	return ps
}

// Wrap returns a copy of cfg whose responses are filtered by o (see
// NewTransport). Give it to the clientset, dynamic or metadata client an
// informer factory lists and watches with; use another config for
// clients that read objects to send them back (a filtered Get lacks the
// dropped fields).
func Wrap(cfg *rest.Config, o Options) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return NewTransport(rt, o) })
	return c
}

// NewTransport returns a RoundTripper that removes the fields o lists
// from the bodies of successful GET responses (lists, watches including
// watch-list streams, and single objects) as they stream from rt, so that
// the decoder of any client (typed, dynamic, metadata) never allocates
// them:
//
//   - protobuf: each list item, object or watch event is held (one at a
//     time, in reused buffers) and the tags of the dropped fields are
//     rewritten in place to field numbers the object's Go type does not
//     have, which its generated decoder skips without allocating; the
//     body keeps its length.
//   - JSON: the dropped members are cut out of the stream.
//
// Objects decode to what client-go builds from the unfiltered body, less
// the dropped fields. A body the filter does not understand, or that is
// malformed or truncated, reaches the decoder unchanged from the first
// byte the filter could not follow, so it fails as in client-go. What
// is not decoded is not checked: an error inside a dropped field alone
// (such as a managedFields entry of the wrong type) is not reported,
// where client-go's decoder fails the request.
func NewTransport(rt http.RoundTripper, o Options) http.RoundTripper {
	paths := o.paths()
	s := o.Scheme
	if s == nil {
		s = scheme.Scheme
	}
	return &transport{
		next:  rt,
		plans: &planner{scheme: s, paths: paths},
		json:  &jsonFilter{top: topTrie(jsonTrie(paths))},
		none:  len(paths) == 0,
	}
}

// transport filters response bodies.
type transport struct {
	next  http.RoundTripper
	plans *planner
	json  *jsonFilter
	none  bool
}

// Media types the filter reads.
const (
	protoType = "application/vnd.kubernetes.protobuf"
	jsonType  = "application/json"
)

// RoundTrip sends req through the wrapped transport and filters the
// response body.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || t.none || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		resp.Body == nil || resp.Header.Get("Content-Encoding") != "" {
		return resp, err
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return resp, nil
	}
	watch := params["stream"] == "watch" || req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1"
	var f filterFunc
	switch {
	case mt == protoType && watch:
		f = (&protoFilter{plans: t.plans}).watch
	case mt == protoType:
		f = (&protoFilter{plans: t.plans}).object
	case mt == jsonType:
		f = t.json.stream
	default:
		return resp, nil
	}
	resp.Body = newFilteredBody(resp.Body, f)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// WrappedRoundTripper returns the transport it wraps (client-go's
// transport utilities look through wrappers with it).
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }
