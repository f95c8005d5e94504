package fakelw

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// fakeWatch is one open watch. Events queue without bound and reach the
// consumer in order through an unbuffered channel, so a test may change
// the source faster than the reflector reads. (apimachinery's
// RaceFreeFakeWatcher panics once 100 events are unread; FakeWatcher's
// sends race with Stop.)
//
// Each fakeWatch owns one goroutine, run, which ends when the consumer
// calls Stop or, after the queue drains, when the source closes the watch.
type fakeWatch struct {
	options watchOptions
	result  chan watch.Event
	wake    chan struct{} // capacity 1: "the queue or closing changed"
	stopped chan struct{} // closed by Stop

	stopOnce sync.Once

	mu      sync.Mutex // guards queue and closing
	queue   []watch.Event
	closing bool // the source closed the watch; end once the queue drains
}

type watchOptions struct {
	bookmarks bool
}

func newFakeWatch(opts watchOptions, initial []watch.Event) *fakeWatch {
	w := &fakeWatch{
		options: opts,
		result:  make(chan watch.Event),
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		queue:   initial,
	}
	go w.run()
	return w
}

// Stop implements watch.Interface. It may be called more than once.
func (w *fakeWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
}

// ResultChan implements watch.Interface.
func (w *fakeWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *fakeWatch) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

// push queues an event; it never blocks.
func (w *fakeWatch) push(ev watch.Event) {
	w.mu.Lock()
	if !w.closing {
		w.queue = append(w.queue, ev)
	}
	w.mu.Unlock()
	w.signal()
}

// close ends the watch from the server side once queued events are read.
func (w *fakeWatch) close() {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.signal()
}

func (w *fakeWatch) isOpen() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.closing && !w.isStopped()
}

func (w *fakeWatch) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fakeWatch) run() {
	defer close(w.result)
	for {
		w.mu.Lock()
		if len(w.queue) > 0 {
			ev := w.queue[0]
			w.queue[0] = watch.Event{}
			w.queue = w.queue[1:]
			w.mu.Unlock()
			select {
			case w.result <- ev:
			case <-w.stopped:
				return
			}
			continue
		}
		closing := w.closing
		w.mu.Unlock()
		if closing {
			return
		}
		select {
		case <-w.wake:
		case <-w.stopped:
			return
		}
	}
}
