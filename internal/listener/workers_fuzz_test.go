package listener

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// tokenHandler records each call as it starts, then waits for a token on
// step (any of the calls in progress may take it), records the call as
// returned and, for an object ending in "!", panics.
type tokenHandler struct {
	step chan struct{}

	mu       sync.Mutex
	started  []Notification
	returned []Notification
}

func (h *tokenHandler) call(n Notification) {
	h.mu.Lock()
	h.started = append(h.started, n)
	h.mu.Unlock()
	<-h.step
	h.mu.Lock()
	h.returned = append(h.returned, n)
	h.mu.Unlock()
	if s, ok := n.Obj.(string); ok && strings.HasSuffix(s, "!") {
		panic("handler panic for " + s)
	}
}

func (h *tokenHandler) OnAdd(obj any, initial bool) { h.call(NewAdd(obj, initial)) }
func (h *tokenHandler) OnUpdate(old, obj any)       { h.call(NewUpdate(old, obj)) }
func (h *tokenHandler) OnDelete(obj any)            { h.call(NewDelete(obj)) }

func (h *tokenHandler) snapshot() (started, returned []Notification) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.started), slices.Clone(h.returned)
}

// workerKey is the key a workers fuzz input groups by: the object key, or
// "" for an object that cannot be keyed.
func workerKey(n Notification) string {
	k, err := strKey(n.Obj)
	if err != nil {
		return ""
	}
	return k
}

// FuzzWorkers drives a listener with Workers > 1 (the direct engine's own
// queue and keyed workers) against a model of what it was handed. Handlers
// block until the input hands out a token, which any call in progress may
// take, so the workers' interleaving is left open and the model checks what
// must hold whatever it is: each key's notifications start in the order
// they were distributed, each exactly once; Delivered counts the calls
// started; Pending is what the model holds minus what the workers' small
// buffers may hold; HasSynced turns true once the informer synced and
// every initial-list add returned (or, with RecoverPanics, panicked);
// Panics counts the handler panics. The first byte chooses the number of
// workers and RecoverPanics; then each byte is one operation:
//
//	bits 0-2: 0-1 add (bit 6: initial-list), 2-3 update, 4 delete,
//	          5-6 let one handler call return, 7 the informer syncs
//	bits 3-5: the object key; bit 7: the handler panics on it (with
//	          RecoverPanics only)
func FuzzWorkers(f *testing.F) {
	const (
		add, update, del, step, upSync = 0, 2, 4, 5, 7
		a, b, c, bad                   = 0 << 3, 1 << 3, 2 << 3, 4 << 3
		initial, panics                = 64, 128
	)
	f.Add(uint8(0), []byte{add | a | initial, add | b | initial, update | a, upSync, step, step, step})
	f.Add(uint8(1), []byte{add | a, update | a, update | a, del | a, add | b, step, step, step, step, step})
	f.Add(uint8(5), []byte{add | a | initial | panics, add | b | initial, upSync, step, step})
	f.Add(uint8(2), []byte{add | bad, add | bad | initial, add | c, update | c, del | c, step, step, step, step, step})
	long := []byte{}
	for i := range 60 {
		long = append(long, byte(i%3)<<3|add, byte(i%4)<<3|update)
	}
	f.Add(uint8(4), append(long, upSync, step, step, step, step, step, step, step, step))
	f.Fuzz(func(t *testing.T, first uint8, ops []byte) {
		synctest.Test(t, func(t *testing.T) { runWorkersFuzz(t, 2+int(first%3), first&4 != 0, ops) })
	})
}

func runWorkersFuzz(t *testing.T, workers int, recoverPanics bool, ops []byte) {
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("inf")
	h := &tokenHandler{step: make(chan struct{})}
	l := mustListener(t, p, h, up, Options{
		Engine: EngineDirect, Name: "w", Workers: workers, KeyFunc: strKey, RecoverPanics: recoverPanics,
		Logger: discardLogger(), BacklogWarnThresholds: []int{-1},
	})
	d, ok := l.engine.(*direct)
	if !ok {
		t.Fatalf("engine %T, want the direct engine's own queue", l.engine)
	}
	stop := runProcessor(p)
	defer func() {
		close(h.step)
		stop()
	}()
	var (
		handed   []Notification
		upSynced bool
		synced   bool
	)
	for i, op := range ops {
		o := decodeQueueOp(op)
		switch op & 7 {
		case 0, 1, 2, 3, 4:
			obj := fuzzObj(o.key, i)
			if s, ok := obj.(string); ok && op&128 != 0 && recoverPanics {
				obj = s + "!"
			}
			n := [5]Notification{NewAdd(obj, o.initial), NewAdd(obj, o.initial), NewUpdate(fuzzObj(o.key, -i), obj), NewUpdate(fuzzObj(o.key, -i), obj), NewDelete(obj)}[op&7]
			p.Distribute(n, false)
			handed = append(handed, n)
		case 5, 6:
			started, returned := h.snapshot()
			if len(started) > len(returned) {
				h.step <- struct{}{}
			}
		case 7:
			if !upSynced {
				up.sync()
				upSynced = true
			}
		}
		synctest.Wait()
		started, returned := h.snapshot()
		// Per key: the calls started are the key's notifications, in
		// order, each once; the calls returned are among those started.
		byKey := map[string][]Notification{}
		for _, n := range handed {
			byKey[workerKey(n)] = append(byKey[workerKey(n)], n)
		}
		gotByKey := map[string][]Notification{}
		for _, n := range started {
			gotByKey[workerKey(n)] = append(gotByKey[workerKey(n)], n)
		}
		for k, got := range gotByKey {
			if want := byKey[k]; len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
				t.Fatalf("op %d: key %q calls\n got  %+v\n want a prefix of %+v", i, k, got, want)
			}
		}
		inCall := len(started) - len(returned)
		if inCall < 0 || inCall > workers {
			t.Fatalf("op %d: %d calls in progress with %d workers", i, inCall, workers)
		}
		s := l.Stats()
		if s.Delivered != uint64(len(started)) {
			t.Fatalf("op %d: Delivered %d, %d calls started", i, s.Delivered, len(started))
		}
		// What was handed and not started is pending, in a worker's
		// buffer, or in the hand of the goroutine that feeds them.
		if held := int64(len(handed)-len(started)) - s.Pending; held < 0 || held > int64(workers*workerBuffer+1) {
			t.Fatalf("op %d: Pending %d with %d handed and %d started", i, s.Pending, len(handed), len(started))
		}
		d.mu.Lock()
		queued := d.q.len()
		d.mu.Unlock()
		if int64(queued) != s.Pending || s.HighWater < s.Pending || s.Coalesced != 0 {
			t.Fatalf("op %d: stats %+v with %d queued", i, s, queued)
		}
		wantPanics := 0
		for _, n := range returned {
			if s, ok := n.Obj.(string); ok && strings.HasSuffix(s, "!") {
				wantPanics++
			}
		}
		if s.Panics != uint64(wantPanics) {
			t.Fatalf("op %d: Panics %d, %d panicking calls returned", i, s.Panics, wantPanics)
		}
		if !synced && upSynced {
			unfinished := 0
			for _, n := range handed {
				unfinished += initialAdds(n)
			}
			for _, n := range returned {
				unfinished -= initialAdds(n)
			}
			synced = unfinished == 0
		}
		if l.HasSynced() != synced {
			t.Fatalf("op %d: HasSynced %v, model %v", i, l.HasSynced(), synced)
		}
	}
}
