package listener

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// blockedDistribute sets up a running processor whose only listener, full
// under OverflowBlock with its handler stuck in "add 0 false", holds a
// Distribute of 2 waiting for room. It returns the processor, the blocked
// listener, the gate holding its handler, a channel closed when that
// Distribute returns, the processor's cancel, and a channel closed when Run
// returns. The caller releases the gate and cancels.
func blockedDistribute(t *testing.T) (p *Processor, blocked *Listener, g *gate, distributed chan struct{}, cancel func(), ran chan struct{}) {
	t.Helper()
	p = NewProcessor(ProcessorOptions{})
	g = newGate("add 0 false")
	blocked = mustListener(t, p, &recorder{before: g.wait}, newUpstream("inf"), Options{Overflow: OverflowBlock, MaxPending: 1})
	ctx, cancel := context.WithCancel(context.Background())
	ran = make(chan struct{})
	go func() {
		defer close(ran)
		p.Run(ctx)
	}()
	synctest.Wait()
	p.Distribute(NewAdd(0, false), false) // taken by the handler, which blocks
	synctest.Wait()
	p.Distribute(NewAdd(1, false), false) // fills the queue
	distributed = make(chan struct{})
	go func() {
		defer close(distributed)
		p.Distribute(NewAdd(2, false), false) // waits for room
	}()
	synctest.Wait()
	if isClosed(distributed) {
		t.Fatal("Distribute returned without room under OverflowBlock")
	}
	return p, blocked, g, distributed, cancel, ran
}

// TestBlockedHandoffHoldsNoProcessorLock checks that a Distribute waiting
// for room under OverflowBlock does not hold up AddListener, ShouldResync,
// ResyncCheckPeriodChanged, StartWatchSynced and RemoveListener of another
// listener, and that a listener added meanwhile gets the later
// notifications but not the one being handed out. (When Distribute held the
// processor's read lock while it waited, AddListener never returned and the
// test timed out.)
func TestBlockedHandoffHoldsNoProcessorLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, blocked, g, distributed, cancel, ran := blockedDistribute(t)
		defer func() { cancel(); <-ran }()
		defer g.release("add 0 false")

		late := &recorder{}
		other := mustListener(t, p, late, newUpstream("inf"), Options{})
		p.StartWatchSynced(other)
		p.ShouldResync()
		p.ResyncCheckPeriodChanged(p.logger, 0)
		gone := mustListener(t, p, &recorder{}, newUpstream("inf"), Options{Engine: EngineClassic})
		if err := p.RemoveListener(gone); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if isClosed(distributed) {
			t.Fatal("the blocked Distribute returned while its listener had no room")
		}

		// Removing the full listener frees the Distribute waiting on it.
		if err := p.RemoveListener(blocked); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !isClosed(distributed) {
			t.Fatal("RemoveListener did not free the Distribute waiting on the removed listener")
		}
		p.Distribute(NewAdd(3, false), false)
		synctest.Wait()
		wantCalls(t, "late", late.got(), []string{"add 3 false"})
	})
}

// TestStopFreesBlockedHandoff checks that stopping the processor frees a
// Distribute waiting for room, and that Run returns although that
// listener's handler call is still stuck until released.
func TestStopFreesBlockedHandoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, _, g, distributed, cancel, ran := blockedDistribute(t)
		cancel()
		synctest.Wait()
		if !isClosed(distributed) {
			t.Fatal("stopping the processor did not free the waiting Distribute")
		}
		if isClosed(ran) {
			t.Fatal("Run returned while a handler call was in progress")
		}
		g.release("add 0 false")
		<-ran
	})
}

// TestUnblockReachesLaterListeners checks that after Unblock, a listener
// added later drops what finds no room instead of waiting.
func TestUnblockReachesLaterListeners(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		p.Unblock()
		g := newGate("add 0 false")
		rec := &recorder{before: g.wait}
		l := mustListener(t, p, rec, newUpstream("inf"), Options{Overflow: OverflowBlock, MaxPending: 1})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd(0, false), false)
		synctest.Wait()
		p.Distribute(NewAdd(1, false), false)
		p.Distribute(NewAdd(2, false), false) // no room: dropped at once
		g.release("add 0 false")
		synctest.Wait()
		wantCalls(t, "unblocked", rec.got(), []string{"add 0 false", "add 1 false"})
		if got := l.Stats().Pending; got != 0 {
			t.Fatalf("Pending = %d, want 0", got)
		}
	})
}

// intRecorder records the ints it is handed by OnAdd.
type intRecorder struct {
	mu  sync.Mutex
	got []int
}

func (r *intRecorder) OnAdd(obj any, _ bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, obj.(int))
}
func (r *intRecorder) OnUpdate(_, _ any) {}
func (r *intRecorder) OnDelete(any)      {}

func (r *intRecorder) ints() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// TestListenerSetChangesDuringDistribute adds and removes listeners while
// notifications are distributed: a listener present throughout gets every
// notification in order, and each one that came and went gets a run of
// consecutive notifications (from some point after it was added to some
// point before it was removed), never one out of order or with a gap.
func TestListenerSetChangesDuringDistribute(t *testing.T) {
	const total, churn = 600, 20
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		stable := &intRecorder{}
		mustListener(t, p, stable, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		// Each churned listener lives while about total/churn notifications
		// are distributed: it is removed after the distributor's next step.
		recs := make([]*intRecorder, churn)
		step := make(chan struct{}, churn)
		churned := make(chan struct{})
		go func() {
			defer close(churned)
			for i := range recs {
				recs[i] = &intRecorder{}
				l := mustListener(t, p, recs[i], up, Options{Engine: eng})
				<-step
				if err := p.RemoveListener(l); err != nil {
					t.Error(err)
				}
			}
		}()
		for i := range total {
			p.Distribute(NewAdd(i, false), false)
			if i%(total/churn) == 0 {
				step <- struct{}{}
				runtime.Gosched()
			}
		}
		<-churned
		synctest.Wait()

		got := stable.ints()
		if len(got) != total {
			t.Fatalf("the stable listener got %d notifications, want %d", len(got), total)
		}
		for i, n := range got {
			if n != i {
				t.Fatalf("the stable listener's notification %d is %d", i, n)
			}
		}
		some := 0
		for i, r := range recs {
			got := r.ints()
			if len(got) > 0 {
				some++
			}
			for j := 1; j < len(got); j++ {
				if got[j] != got[j-1]+1 {
					t.Fatalf("churned listener %d got %v: not consecutive at %d", i, got, j)
				}
			}
		}
	})
}
