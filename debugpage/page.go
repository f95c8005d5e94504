package debugpage

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/informer"
)

// Options configure a Page. The zero value is usable.
type Options struct {
	// Title heads the page; "fanout informers" if empty.
	Title string
	// Clock times samples and ticks Run; clock.RealClock{} if nil.
	Clock clock.WithTicker
	// SampleInterval is the time between samples; 5s if zero.
	SampleInterval time.Duration
	// Samples is how many samples the history keeps per handler, and so
	// the sparkline's width in samples; 60 if zero.
	Samples int
	// BehindAfter marks a handler behind once its oldest pending
	// notification is older than this; 30s if zero.
	BehindAfter time.Duration
	// Refresh is how often the HTML page reloads itself; 5s if zero,
	// never if negative.
	Refresh time.Duration
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "fanout informers"
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.SampleInterval <= 0 {
		o.SampleInterval = 5 * time.Second
	}
	if o.Samples <= 0 {
		o.Samples = 60
	}
	if o.BehindAfter <= 0 {
		o.BehindAfter = 30 * time.Second
	}
	if o.Refresh == 0 {
		o.Refresh = 5 * time.Second
	}
	return o
}

// ErrNotFanout is returned by Register for an informer this module did not
// build: the page reads figures only fanout informers expose.
var ErrNotFanout = errors.New("debugpage: not a fanout informer")

// Page is the debug page: an http.Handler that shows the informers
// registered with it. All its methods are safe for concurrent use.
type Page struct {
	opts Options

	mu sync.Mutex // guards the fields below
	// informers maps a registered name to its informer.
	informers map[string]informer.SharedInformer
	// history holds each handler's samples, keyed by informer name and
	// registration.
	history map[handlerKey]*ring
	// lastSample is when the newest sample was taken; zero before any.
	lastSample time.Time
}

// handlerKey identifies one handler registration of a named informer.
type handlerKey struct {
	informer string
	reg      informer.ResourceEventHandlerRegistration
}

// New returns a page with no informers.
func New(opts Options) *Page {
	return &Page{
		opts:      opts.withDefaults(),
		informers: map[string]informer.SharedInformer{},
		history:   map[handlerKey]*ring{},
	}
}

// Register adds inf to the page under name. inf must be an informer built
// by github.com/kfanout/fanout/informer (or a typed wrapper of one);
// otherwise Register returns ErrNotFanout. A name can be registered once
// until it is unregistered.
func (p *Page) Register(name string, inf informer.SharedInformer) error {
	if _, ok := informer.InformerStatsOf(inf); !ok {
		return fmt.Errorf("%w: %T", ErrNotFanout, inf)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.informers[name]; dup {
		return fmt.Errorf("debugpage: informer %q is already registered", name)
	}
	p.informers[name] = inf
	return nil
}

// Unregister removes the informer registered under name, and its history.
// Unknown names are ignored.
func (p *Page) Unregister(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.informers, name)
	for k := range p.history {
		if k.informer == name {
			delete(p.history, k)
		}
	}
}

// registered returns the registered informers sorted by name.
func (p *Page) registered() []namedInformer {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]namedInformer, 0, len(p.informers))
	for name, inf := range p.informers {
		out = append(out, namedInformer{name, inf})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// namedInformer is a registered informer with its name.
type namedInformer struct {
	name string
	inf  informer.SharedInformer
}

// ServeHTTP writes the page: HTML, or the Snapshot as JSON when the query
// has format=json. It takes a sample first when the newest is older than
// Options.SampleInterval.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	snap := p.snapshot(true)
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Query().Get("format") == "json" {
		writeJSON(w, snap)
		return
	}
	writeHTML(w, p.opts, snap)
}
