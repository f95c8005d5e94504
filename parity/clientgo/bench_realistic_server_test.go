package parity

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// realServer is an httptest server that speaks enough of the apiserver's
// list and watch protocol for client-go's REST client and both libraries'
// reflectors, over objects encoded once up front (off the Go heap):
//
//   - GET /api/v1/<resource> and /apis/<group>/<version>/<resource>
//     (cluster-wide), in JSON or protobuf as the Accept header asks.
//   - Lists honour limit and continue (remainingItemCount set), and
//     always serve the current state at the current resource version.
//   - ?watch=true streams watch events (newline-delimited JSON, or
//     length-prefixed protobuf WatchEvents with enveloped objects), with a
//     BOOKMARK every bookmarkEvery when allowWatchBookmarks is set, and
//     closes after timeoutSeconds.
//   - sendInitialEvents=true (watch-list) first streams an ADDED event per
//     object, then the bookmark annotated k8s.io/initial-events-end.
//
// The benchmark drives it: send pushes a pre-encoded event to every open
// watch of a resource (and applies it to what later lists return), expire
// ends every open watch of a resource with a 410 Expired ERROR event.
type realServer struct {
	srv           *httptest.Server
	mem           offHeap
	bookmarkEvery time.Duration

	mu  sync.Mutex
	rv  int64
	res map[string]*realResource
}

// realResource is one resource the server serves.
type realResource struct {
	gv      schema.GroupVersion
	kind    string
	newObj  func() runtime.Object
	items   []realItem
	watches map[*realWatch]struct{}
	opened  int
	// requests are the arrival times of the list and watch requests.
	requests []time.Time
}

// realItem is one object, encoded.
type realItem struct {
	json  []byte // with apiVersion and kind
	proto []byte // the object's own protobuf message, no envelope
}

// realEvent is a pre-encoded watch event replacing items[index].
type realEvent struct {
	typ   string
	index int
	rv    int64
	item  realItem
}

// realWatch is one open watch.
type realWatch struct {
	ch     chan *realEvent
	expire chan struct{}
}

const (
	protoMediaType = "application/vnd.kubernetes.protobuf"
	jsonMediaType  = "application/json"
)

// newRealServer starts an empty server; it is closed (and its memory
// unmapped) when the benchmark ends.
func newRealServer(tb testing.TB) *realServer {
	s := &realServer{res: map[string]*realResource{}, bookmarkEvery: time.Second, rv: 1}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
		s.mem.free()
	})
	return s
}

// resourcePath is the URL path of a cluster-wide resource.
func resourcePath(gv schema.GroupVersion, resource string) string {
	if gv.Group == "" {
		return "/api/" + gv.Version + "/" + resource
	}
	return "/apis/" + gv.Group + "/" + gv.Version + "/" + resource
}

// add registers resource with objs (which must carry their TypeMeta and
// a resourceVersion); newObj returns an empty object of the kind, for
// bookmarks.
func (s *realServer) add(gv schema.GroupVersion, resource, kind string, newObj func() runtime.Object, objs []runtime.Object) {
	r := &realResource{gv: gv, kind: kind, newObj: newObj, watches: map[*realWatch]struct{}{}}
	r.items = make([]realItem, len(objs))
	for i, o := range objs {
		r.items[i] = s.encode(o)
	}
	s.mu.Lock()
	s.res[resourcePath(gv, resource)] = r
	s.mu.Unlock()
}

// encode encodes obj in both formats, off the heap.
func (s *realServer) encode(obj runtime.Object) realItem {
	j, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	p, err := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
	if err != nil {
		panic(err)
	}
	return realItem{json: s.mem.copyOf(j), proto: s.mem.copyOf(p)}
}

// nextRV reserves the next resource version.
func (s *realServer) nextRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	return s.rv
}

// event pre-encodes a MODIFIED event that replaces the index-th object of
// resource with obj; obj's resourceVersion must be rv (from nextRV).
func (s *realServer) event(obj runtime.Object, index int, rv int64) *realEvent {
	return &realEvent{typ: "MODIFIED", index: index, rv: rv, item: s.encode(obj)}
}

// send applies ev to resource and hands it to every open watch of it,
// waiting while a watch's buffer is full (as a TCP connection would).
func (s *realServer) send(gv schema.GroupVersion, resource string, ev *realEvent) {
	s.mu.Lock()
	r := s.res[resourcePath(gv, resource)]
	r.items[ev.index] = ev.item
	s.rv = max(s.rv, ev.rv)
	ws := make([]*realWatch, 0, len(r.watches))
	for w := range r.watches {
		ws = append(ws, w)
	}
	s.mu.Unlock()
	for _, w := range ws {
		select {
		case w.ch <- ev:
		case <-w.expire:
		}
	}
}

// expire ends every open watch of resource with a 410 ERROR event.
func (s *realServer) expire(gv schema.GroupVersion, resource string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res[resourcePath(gv, resource)]
	for w := range r.watches {
		close(w.expire)
		delete(r.watches, w)
	}
}

// openWatches returns how many watches of resource are open and how many
// were opened in all.
func (s *realServer) openWatches(gv schema.GroupVersion, resource string) (open, opened int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res[resourcePath(gv, resource)]
	return len(r.watches), r.opened
}

// firstRequestAfter returns when the first list or watch request of
// resource after t arrived (the zero time if none did).
func (s *realServer) firstRequestAfter(gv schema.GroupVersion, resource string, t time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.res[resourcePath(gv, resource)].requests {
		if at.After(t) {
			return at
		}
	}
	return time.Time{}
}

// config returns a REST config for the server: protobuf (preferred, as
// kube-controller-manager) or JSON (client-go's default), no client-side
// rate limit (the server answers every page at once).
func (s *realServer) config(codec string) *rest.Config {
	cfg := &rest.Config{Host: s.srv.URL, QPS: -1}
	if codec == "proto" {
		cfg.ContentType = protoMediaType
		cfg.AcceptContentTypes = protoMediaType + "," + jsonMediaType
	}
	return cfg
}

// clientset returns a client-go clientset for the server.
func (s *realServer) clientset(tb testing.TB, codec string) *kubernetes.Clientset {
	cs, err := kubernetes.NewForConfig(s.config(codec))
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

func (s *realServer) serve(w http.ResponseWriter, req *http.Request) {
	s.mu.Lock()
	r := s.res[req.URL.Path]
	if r != nil {
		r.requests = append(r.requests, time.Now())
	}
	s.mu.Unlock()
	if r == nil {
		http.NotFound(w, req)
		return
	}
	proto := strings.Contains(req.Header.Get("Accept"), protoMediaType)
	q := req.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		s.serveWatch(w, req, r, proto)
		return
	}
	s.serveList(w, r, proto, q.Get("limit"), q.Get("continue"))
}

func (s *realServer) serveList(w http.ResponseWriter, r *realResource, proto bool, limitParam, cont string) {
	offset, _ := strconv.Atoi(cont)
	limit, _ := strconv.Atoi(limitParam)
	s.mu.Lock()
	rv := strconv.FormatInt(s.rv, 10)
	n := len(r.items)
	end := n
	if limit > 0 && offset+limit < n {
		end = offset + limit
	}
	items := make([]realItem, end-offset)
	copy(items, r.items[offset:end])
	s.mu.Unlock()
	next, remaining := "", int64(0)
	if end < n {
		next, remaining = strconv.Itoa(end), int64(n-end)
	}
	listKind := r.kind + "List"
	if proto {
		w.Header().Set("Content-Type", protoMediaType)
		var meta pbuf
		meta.str(2, rv)
		meta.str(3, next)
		if remaining > 0 {
			meta.varintField(4, uint64(remaining))
		}
		size := fieldLen(len(meta))
		for _, it := range items {
			size += fieldLen(len(it.proto))
		}
		var head pbuf
		head = append(head, protoMagic...)
		head.typeMeta(r.gv.String(), listKind)
		head.tag(2, size)
		head.bytes(1, meta)
		_, _ = w.Write(head)
		for _, it := range items {
			var t pbuf
			t.tag(2, len(it.proto))
			_, _ = w.Write(t)
			_, _ = w.Write(it.proto)
		}
		return
	}
	w.Header().Set("Content-Type", jsonMediaType)
	meta := map[string]any{"resourceVersion": rv}
	if next != "" {
		meta["continue"] = next
		meta["remainingItemCount"] = remaining
	}
	mj, _ := json.Marshal(meta)
	fmt.Fprintf(w, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, listKind, r.gv.String(), mj)
	for i, it := range items {
		if i > 0 {
			_, _ = w.Write([]byte{','})
		}
		_, _ = w.Write(it.json)
	}
	_, _ = w.Write([]byte("]}"))
}

func (s *realServer) serveWatch(w http.ResponseWriter, req *http.Request, r *realResource, proto bool) {
	q := req.URL.Query()
	bookmarks := q.Get("allowWatchBookmarks") == "true"
	initial := q.Get("sendInitialEvents") == "true"
	timeout := 30 * time.Minute
	if t, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && t > 0 {
		timeout = time.Duration(t) * time.Second
	}
	rw := &watchWriter{w: w, proto: proto}
	if proto {
		w.Header().Set("Content-Type", protoMediaType+";stream=watch")
	} else {
		w.Header().Set("Content-Type", jsonMediaType)
	}
	w.WriteHeader(http.StatusOK)
	rw.flush()

	wt := &realWatch{ch: make(chan *realEvent, 1024), expire: make(chan struct{})}
	s.mu.Lock()
	r.watches[wt] = struct{}{}
	r.opened++
	n := len(r.items)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(r.watches, wt)
		s.mu.Unlock()
	}()

	if initial {
		for i := range n {
			s.mu.Lock()
			it := r.items[i]
			s.mu.Unlock()
			rw.event("ADDED", r, it)
		}
		rw.event("BOOKMARK", r, s.bookmark(r, true))
		rw.flush()
	}

	tick := time.NewTicker(s.bookmarkEvery)
	defer tick.Stop()
	end := time.NewTimer(timeout)
	defer end.Stop()
	for {
		select {
		case ev := <-wt.ch:
			rw.event(ev.typ, r, ev.item)
			if len(wt.ch) == 0 {
				rw.flush()
			}
		case <-tick.C:
			if bookmarks {
				rw.event("BOOKMARK", r, s.bookmark(r, false))
				rw.flush()
			}
		case <-wt.expire:
			rw.status(metav1.Status{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
				Status:   metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: http.StatusGone,
				Message: "too old resource version: 1 (2)",
			})
			rw.flush()
			return
		case <-end.C:
			return
		case <-req.Context().Done():
			return
		}
	}
}

// bookmark encodes a bookmark at the current resource version (on the
// heap: bookmarks are rare).
func (s *realServer) bookmark(r *realResource, initialEnd bool) realItem {
	s.mu.Lock()
	rv := strconv.FormatInt(s.rv, 10)
	s.mu.Unlock()
	obj := r.newObj()
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	m.SetResourceVersion(rv)
	if initialEnd {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	obj.GetObjectKind().SetGroupVersionKind(r.gv.WithKind(r.kind))
	j, _ := json.Marshal(obj)
	p, _ := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
	return realItem{json: j, proto: p}
}

// watchWriter writes watch events in one of the two framings.
type watchWriter struct {
	w     http.ResponseWriter
	proto bool
	buf   pbuf
}

func (ww *watchWriter) flush() {
	if f, ok := ww.w.(http.Flusher); ok {
		f.Flush()
	}
}

// event writes one event whose object is it, of r's kind.
func (ww *watchWriter) event(typ string, r *realResource, it realItem) {
	ww.raw(typ, r.gv.String(), r.kind, it)
}

func (ww *watchWriter) raw(typ, apiVersion, kind string, it realItem) {
	if !ww.proto {
		_, _ = fmt.Fprintf(ww.w, `{"type":%q,"object":`, typ)
		_, _ = ww.w.Write(it.json)
		_, _ = ww.w.Write([]byte("}\n"))
		return
	}
	// WatchEvent{type=1, object=2: RawExtension{raw=1: envelope}}, where
	// envelope = magic + Unknown{typeMeta=1, raw=2}.
	var tm pbuf
	tm.str(1, apiVersion)
	tm.str(2, kind)
	unknown := fieldLen(len(tm)) + fieldLen(len(it.proto))
	envelope := len(protoMagic) + unknown
	rawExt := fieldLen(envelope)
	typeField := fieldLen(len(typ))
	total := typeField + fieldLen(rawExt)
	b := ww.buf[:0]
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b.str(1, typ)
	b.tag(2, rawExt)
	b.tag(1, envelope)
	b = append(b, protoMagic...)
	b.bytes(1, tm)
	b.tag(2, len(it.proto))
	ww.buf = b
	_, _ = ww.w.Write(b)
	_, _ = ww.w.Write(it.proto)
}

func (ww *watchWriter) status(st metav1.Status) {
	j, _ := json.Marshal(st)
	p, _ := st.Marshal()
	ww.raw("ERROR", "v1", "Status", realItem{json: j, proto: p})
}

// protoMagic starts every enveloped Kubernetes protobuf message.
var protoMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// pbuf appends protobuf fields.
type pbuf []byte

// tag appends a length-delimited field header for n bytes to follow.
func (b *pbuf) tag(field, n int) {
	*b = binary.AppendUvarint(append(*b, byte(field<<3|2)), uint64(n))
}

func (b *pbuf) bytes(field int, v []byte) {
	b.tag(field, len(v))
	*b = append(*b, v...)
}

func (b *pbuf) str(field int, v string) {
	if v == "" {
		return
	}
	b.tag(field, len(v))
	*b = append(*b, v...)
}

func (b *pbuf) varintField(field int, v uint64) {
	*b = binary.AppendUvarint(append(*b, byte(field<<3)), v)
}

// typeMeta appends the Unknown envelope's typeMeta field.
func (b *pbuf) typeMeta(apiVersion, kind string) {
	var tm pbuf
	tm.str(1, apiVersion)
	tm.str(2, kind)
	b.bytes(1, tm)
}

// fieldLen is the encoded size of a length-delimited field of n bytes
// (field numbers below 16).
func fieldLen(n int) int {
	return 1 + len(binary.AppendUvarint(nil, uint64(n))) + n
}
