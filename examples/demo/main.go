// Command demo runs a listener.Processor with three handlers on a simulated
// source of a few hundred events and prints what each handler received and
// how its listener buffered:
//
//   - fast keeps up: the source waits for it to handle each event, so at
//     most one notification is ever pending for it;
//   - slow is stuck in its first call until the source is done, so everything
//     else waits in its buffer (it spills), without holding up the others;
//   - late joins halfway: it first gets the source's current state replayed
//     as initial-list adds, then the live events.
//
// The output is deterministic (the same as testdata/output.txt on every
// run): the source is seeded, it paces itself on
// the handlers' calls (and waits for slow's first call before its second
// event), and the demo waits for each listener's HasSynced before it
// prints. Stats.Spilled is printed
// for slow only: for a handler that keeps up it depends on whether the
// listener's goroutine went back to sleep before the next event, which is
// up to the Go scheduler. For the same reason late's high-water is not
// printed: its listener may take the first replayed add before the last is
// queued (35 or 36 here). Run it with `go run ./examples/demo`.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
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
	if err := run(os.Stdout); err != nil {
		fmt.Println("demo:", err)
	}
}

// run runs the demo, writing its report to w.
func run(w io.Writer) error {
	synced := newUpstream("demo source")
	p := listener.NewProcessor(listener.ProcessorOptions{UpstreamHasSynced: synced})

	fast := newHandler("fast")
	fast.ack = make(chan struct{})
	slow := newHandler("slow")
	slow.gate = make(chan struct{})
	slow.entered = make(chan struct{})
	late := newHandler("late")
	late.ack = make(chan struct{})

	lFast, err := addListener(p, fast, nil)
	if err != nil {
		return err
	}
	lSlow, err := addListener(p, slow, nil)
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
			if lLate, err = joinLate(p, late, src); err != nil {
				return err
			}
		}
		n := src.next(i < initialList)
		p.Distribute(n)
		distributed++
		<-fast.ack // pace the source on the fast handler
		if i == 0 {
			// slow takes the first event before any other is sent, so
			// its high-water is the same on every run.
			<-slow.entered
		}
		if lLate != nil {
			<-late.ack
		}
		if i == initialList-1 {
			synced.markSynced()
		}
	}

	<-slow.entered
	<-lFast.HasSyncedChecker().Done()
	<-lLate.HasSyncedChecker().Done()
	fmt.Fprintf(w, "source: %d events over %d keys (%d in the initial list); late handler joined at event %d\n\n",
		numEvents, numKeys, initialList, lateJoinsAt)
	fmt.Fprintln(w, "while slow is still stuck in its first call:")
	printStats(w, "fast", lFast, true)
	printStats(w, "slow", lSlow, true)
	printStats(w, "late", lLate, false)
	fmt.Fprintf(w, "  slow: %d of its %d notifications spilled into its buffer\n", lSlow.Stats().Spilled, distributed)

	slow.expect(distributed)
	close(slow.gate)
	<-slow.drained
	<-lSlow.HasSyncedChecker().Done()

	fmt.Fprintln(w, "\nafter slow caught up:")
	printStats(w, "fast", lFast, true)
	printStats(w, "slow", lSlow, true)
	printStats(w, "late", lLate, false)

	fmt.Fprintln(w)
	for _, h := range []*handler{fast, slow, late} {
		h.report(w, src.state)
	}
	return nil
}

// addListener adds a listener for h, which first gets each object current
// returns as an initial-list add.
func addListener(p *listener.Processor, h *handler, current func() []any) (*listener.Listener, error) {
	l, err := p.NewListener(h, listener.Options{Name: h.name})
	if err != nil {
		return nil, err
	}
	return l, p.AddListener(l, current)
}

// joinLate adds a handler to the running processor the way the shared
// informer does: it gets the current state replayed, then the live events.
func joinLate(p *listener.Processor, h *handler, src *source) (*listener.Listener, error) {
	var state []any
	for _, key := range slices.Sorted(maps.Keys(src.state)) {
		state = append(state, src.state[key])
	}
	l, err := addListener(p, h, func() []any { return state })
	if err != nil {
		return nil, err
	}
	for range state {
		<-h.ack
	}
	return l, nil
}

func printStats(w io.Writer, name string, l *listener.Listener, highWater bool) {
	s := l.Stats()
	hw := "   -"
	if highWater {
		hw = fmt.Sprintf("%3d", s.HighWater)
	}
	fmt.Fprintf(w, "  %-4s delivered=%3d pending=%3d high-water=%s synced=%v\n",
		name, s.Delivered, s.Pending, hw, l.HasSynced())
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
			_, exists = s.state[key]
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
func keyOf(obj any) string {
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
	entered chan struct{} // if set, closed when the first call begins
	total   int           // with drained: close drained after this many calls
	drained chan struct{}

	calls, adds, updates, deletes, initial int
	last                                   map[string]string
}

func (h *handler) done() {
	h.calls++
	if h.calls == 1 && h.entered != nil {
		close(h.entered)
	}
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
func (h *handler) OnAdd(obj any, isInInitialList bool) {
	h.adds++
	if isInInitialList {
		h.initial++
	}
	h.last[keyOf(obj)] = obj.(string)
	h.done()
}

// OnUpdate records an update.
func (h *handler) OnUpdate(_, newObj any) {
	h.updates++
	h.last[keyOf(newObj)] = newObj.(string)
	h.done()
}

// OnDelete records a delete.
func (h *handler) OnDelete(obj any) {
	h.deletes++
	delete(h.last, keyOf(obj))
	h.done()
}

func (h *handler) report(w io.Writer, want map[string]string) {
	fmt.Fprintf(w, "%s: %d adds (%d initial-list), %d updates, %d deletes; %d live objects, state matches source: %v\n",
		h.name, h.adds, h.initial, h.updates, h.deletes, len(h.last), maps.Equal(h.last, want))
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(h.last)) {
		if i > 0 && i%8 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %-9s", h.last[k])
	}
	for line := range strings.Lines(b.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}
