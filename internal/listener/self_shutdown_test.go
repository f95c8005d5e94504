package listener

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kfanout/fanout/internal/goid"
)

// goroutineID tells goroutines apart and is stable within one.
func TestGoroutineID(t *testing.T) {
	id := goid.Current()
	if id == 0 || goid.Current() != id {
		t.Fatalf("goroutineID = %d, then %d", id, goid.Current())
	}
	other := make(chan uint64)
	go func() { other <- goid.Current() }()
	if o := <-other; o == 0 || o == id {
		t.Fatalf("another goroutine's id = %d, this one's %d", o, id)
	}
}

// A handler on several workers that removes its listener and waits on
// ShutdownChan from inside a call waits for the calls running on the other
// workers, not for its own.
func TestShutdownChanFromHandlerWaitsForOtherWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add a false")
		var (
			mu       sync.Mutex
			l        *Listener
			removed  bool
			returned = make(chan struct{})
		)
		h := &recorder{before: func(call string) {
			g.wait(call)
			mu.Lock()
			first := call != "add a false" && !removed
			removed = removed || first
			mu.Unlock()
			if !first {
				return
			}
			if err := p.RemoveListener(l); err != nil {
				t.Error(err)
			}
			<-l.ShutdownChan()
			close(returned)
		}}
		mu.Lock()
		l = mustListener(t, p, h, newUpstream("inf"), Options{Workers: 8, KeyFunc: strKey})
		mu.Unlock()
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", false), false) // blocks its worker
		synctest.Wait()
		for i := range 20 {
			p.Distribute(NewAdd(fmt.Sprint("k", i), false), false)
		}
		synctest.Wait()
		if isClosed(returned) {
			t.Fatal("the wait returned while another worker's call was running")
		}
		if isClosed(l.runFinished) {
			t.Fatal("run finished while calls were running")
		}
		g.release("add a false")
		synctest.Wait()
		if !isClosed(returned) {
			t.Fatal("the wait did not return once the other call had")
		}
		if !slices.Contains(h.got(), "add a false") {
			t.Fatalf("handler calls %q: the other worker's call had not returned", h.got())
		}
		if !isClosed(l.ShutdownChan()) {
			t.Fatal("ShutdownChan from outside not closed after the last call")
		}
	})
}
