package listener

import (
	"hash/maphash"
	"sync"
)

// workerBuffer is how many notifications a worker may have waiting besides
// the one it is handling; the rest wait in the listener's queue, where the
// overflow policy applies.
const workerBuffer = 4

// workItem is a notification handed to a worker.
type workItem struct {
	n       Notification
	pending int64
}

// runWorkers is run for Workers > 1: it takes notifications in order and
// hands each to the worker its key hashes to, so one key's notifications
// are handled in order by one worker while different keys run concurrently.
// It returns, once stopped, after every worker has returned.
func (d *direct) runWorkers() {
	seed := maphash.MakeSeed()
	chans := make([]chan workItem, d.workers)
	var wg sync.WaitGroup
	for i := range chans {
		chans[i] = make(chan workItem, workerBuffer)
		wg.Go(func() { d.work(chans[i]) })
	}
	defer wg.Wait()
	defer func() {
		for _, c := range chans {
			close(c)
		}
	}()
	for {
		n, pending, ok := d.next()
		if !ok {
			return
		}
		w := 0
		if key, err := d.l.keyFunc(n.Obj); err == nil {
			w = int(maphash.String(seed, key) % uint64(d.workers))
		}
		select {
		case chans[w] <- workItem{n: n, pending: pending}:
		case <-d.l.stopCh:
			return
		}
	}
}

// work handles one worker's notifications until its channel closes,
// dropping them once the listener is stopped.
func (d *direct) work(ch <-chan workItem) {
	defer d.l.enterCaller()()
	crashed := false
	var tg traceGate
	for it := range ch {
		if d.l.stopped() {
			continue
		}
		if crashed {
			d.l.waitAfterCrash()
		}
		crashed = d.l.deliver(it.n, it.pending, it.pending > initialBufferSize && tg.enabled())
	}
}
