// Command demo runs a listener.Processor with three handlers on a simulated
// source of a few hundred events and prints what each handler received and
// how its listener buffered:
//
//   - fast keeps up: the source waits for it to handle each event, so its
//     listener never writes to its ring buffer;
//   - slow is stuck in its first call until the source is done, so everything
//     else waits in its buffer, without holding up the others;
//   - late joins halfway: it first gets the source's current state replayed
//     as initial-list adds, then the live events.
//
// The output is deterministic: run it with `go run ./examples/demo`.
package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kfanout/fanout/listener"
)

const (
	numKeys     = 40
	initialList = 30  // initial-list adds, distinct keys (at most numKeys)
	numEvents   = 300 // events in total, initial list included
	lateJoinsAt = 150 // event index at which the late handler is added
)

func main() {
	if err := run(); err != nil {
		fmt.Println("demo:", err)
	}
}

func run() error {
	p := listener.NewProcessor(listener.ProcessorOptions{})
	synced := newUpstream("demo source")

	fast := newHandler("fast")
	fast.ack = make(chan struct{})
	slow := newHandler("slow")
	slow.gate = make(chan struct{})
	late := newHandler("late")
	late.ack = make(chan struct{})

	lFast, err := addListener(p, fast, synced)
	if err != nil {
		return err
	}
	lSlow, err := addListener(p, slow, synced)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan struct{})
	go func() {
		p.Run(ctx)
		close(runDone)
	}()
	defer func() {
		cancel()
		<-runDone
	}()

	src := newSource()
	var lLate *listener.Listener
	distributed := 0
	for i := range numEvents {
		if i == lateJoinsAt {
			if lLate, err = joinLate(p, late, synced, src); err != nil {
				return err
			}
		}
		n := src.next(i < initialList)
		p.Distribute(n, false)
		distributed++
		<-fast.ack // pace the source on the fast handler
		if lLate != nil {
			<-late.ack
		}
		if i == initialList-1 {
			synced.markSynced()
		}
	}

	fmt.Printf("source: %d events over %d keys (%d in the initial list); late handler joined at event %d\n\n",
		numEvents, numKeys, initialList, lateJoinsAt)
	fmt.Println("while slow is still stuck in its first call:")
	printStats("fast", lFast)
	printStats("slow", lSlow)
	printStats("late", lLate)

	slow.expect(distributed)
	close(slow.gate)
	<-slow.drained

	fmt.Println("\nafter slow caught up:")
	printStats("fast", lFast)
	printStats("slow", lSlow)
	printStats("late", lLate)

	fmt.Println()
	for _, h := range []*handler{fast, slow, late} {
		h.report(src.state)
	}
	return nil
}

func addListener(p *listener.Processor, h *handler, synced *upstream) (*listener.Listener, error) {
	l, err := p.NewListener(h, listener.Options{Name: h.name, UpstreamHasSynced: synced})
	if err != nil {
		return nil, err
	}
	_, err = p.AddListener(l)
	return l, err
}

// joinLate adds a handler to the running processor the way the shared
// informer does: add, replay the current state, then start the sync watch.
func joinLate(p *listener.Processor, h *handler, synced *upstream, src *source) (*listener.Listener, error) {
	l, err := addListener(p, h, synced)
	if err != nil {
		return nil, err
	}
	for _, key := range slices.Sorted(maps.Keys(src.state)) {
		l.Add(listener.NewAdd(src.state[key], true))
		<-h.ack
	}
	p.StartWatchSynced(l)
	return l, nil
}

func printStats(name string, l *listener.Listener) {
	s := l.Stats()
	fmt.Printf("  %-4s delivered=%3d pending=%3d high-water=%3d via-ring=%3d synced=%v\n",
		name, s.Delivered, s.Pending, s.HighWater, s.Spilled, l.HasSynced())
}

// source simulates an API server's event stream with a fixed seed.
type source struct {
	rnd   *rand.Rand
	rv    int
	state map[string]string // key -> current object "key@rv"
}

func newSource() *source {
	return &source{rnd: rand.New(rand.NewPCG(1, 2)), state: map[string]string{}}
}

// next returns the next event: an add of a new key during the initial list,
// then random adds, updates and deletes.
func (s *source) next(initial bool) listener.Notification {
	s.rv++
	key := fmt.Sprintf("k%02d", s.rnd.IntN(numKeys))
	obj := fmt.Sprintf("%s@%d", key, s.rv)
	old, exists := s.state[key]
	switch {
	case initial:
		for exists { // the initial list holds distinct keys
			key = fmt.Sprintf("k%02d", s.rnd.IntN(numKeys))
			obj = fmt.Sprintf("%s@%d", key, s.rv)
			old, exists = s.state[key]
		}
		s.state[key] = obj
		return listener.NewAdd(obj, true)
	case !exists:
		s.state[key] = obj
		return listener.NewAdd(obj, false)
	case s.rnd.IntN(4) == 0:
		delete(s.state, key)
		return listener.NewDelete(old)
	default:
		s.state[key] = obj
		return listener.NewUpdate(old, obj)
	}
}

// upstream is the source's "has synced" signal.
type upstream struct {
	name string
	ch   chan struct{}
}

func newUpstream(name string) *upstream { return &upstream{name: name, ch: make(chan struct{})} }

// Name names the source in sync tracker names.
func (u *upstream) Name() string { return u.name }

// Done is closed once the initial list has been distributed.
func (u *upstream) Done() <-chan struct{} { return u.ch }

func (u *upstream) markSynced() { close(u.ch) }

// keyOf returns the key of an object "key@rv".
func keyOf(obj interface{}) string {
	k, _, _ := strings.Cut(obj.(string), "@")
	return k
}

func newHandler(name string) *handler { return &handler{name: name, last: map[string]string{}} }

// expect arms drained to close after total calls.
func (h *handler) expect(total int) {
	h.total = total
	h.drained = make(chan struct{})
}

// handler counts what it receives and keeps the last object per key. All
// its fields are used only from its listener's goroutine, except the
// channels, and expect, which is called before gate is closed.
type handler struct {
	name    string
	ack     chan struct{} // if set, signalled after each call
	gate    chan struct{} // if set, the first call waits for it to close
	total   int           // with drained: close drained after this many calls
	drained chan struct{}

	calls, adds, updates, deletes, initial int
	last                                   map[string]string
}

func (h *handler) done() {
	h.calls++
	if h.calls == 1 && h.gate != nil {
		<-h.gate
	}
	if h.ack != nil {
		h.ack <- struct{}{}
	}
	if h.drained != nil && h.calls == h.total {
		close(h.drained)
	}
}

// OnAdd records an add.
func (h *handler) OnAdd(obj interface{}, isInInitialList bool) {
	h.adds++
	if isInInitialList {
		h.initial++
	}
	h.last[keyOf(obj)] = obj.(string)
	h.done()
}

// OnUpdate records an update.
func (h *handler) OnUpdate(_, newObj interface{}) {
	h.updates++
	h.last[keyOf(newObj)] = newObj.(string)
	h.done()
}

// OnDelete records a delete.
func (h *handler) OnDelete(obj interface{}) {
	h.deletes++
	delete(h.last, keyOf(obj))
	h.done()
}

func (h *handler) report(want map[string]string) {
	fmt.Printf("%s: %d adds (%d initial-list), %d updates, %d deletes; %d live objects, state matches source: %v\n",
		h.name, h.adds, h.initial, h.updates, h.deletes, len(h.last), maps.Equal(h.last, want))
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(h.last)) {
		if i > 0 && i%8 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %-9s", h.last[k])
	}
	for line := range strings.Lines(b.String()) {
		fmt.Println(strings.TrimRight(line, " \n"))
	}
}
