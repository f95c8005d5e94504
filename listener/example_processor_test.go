package listener_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/kfanout/fanout/listener"
)

// synced is an upstream that has synced: a DoneChecker whose channel is
// closed.
type synced struct{ done chan struct{} }

func (s synced) Name() string          { return "example upstream" }
func (s synced) Done() <-chan struct{} { return s.done }

// printer prints what it is called with and counts down wg.
type printer struct{ wg *sync.WaitGroup }

func (p printer) OnAdd(obj any, initial bool) {
	fmt.Println("add", obj, initial)
	p.wg.Done()
}
func (p printer) OnUpdate(old, obj any) { fmt.Println("update", old, "->", obj); p.wg.Done() }
func (p printer) OnDelete(obj any)      { fmt.Println("delete", obj); p.wg.Done() }

// A Processor hands every distributed notification to each of its
// listeners, which call their handler in order on their own goroutine.
// This is what a shared informer does with its event handlers.
func ExampleProcessor() {
	up := synced{done: make(chan struct{})}
	close(up.done)
	p := listener.NewProcessor(listener.ProcessorOptions{UpstreamHasSynced: up})
	var wg sync.WaitGroup
	l, err := p.NewListener(printer{&wg}, listener.Options{Name: "printer"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.AddListener(l, nil); err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()

	wg.Add(3)
	p.Distribute(listener.NewAdd("a", true))
	p.Distribute(listener.NewUpdate("a", "a'"))
	p.Distribute(listener.NewDelete("a'"))
	wg.Wait()
	st := l.Stats()
	fmt.Println(l.Name(), l.Engine(), "delivered", st.Delivered, "pending", st.Pending)
	cancel()
	<-done
	// Output:
	// add a true
	// update a -> a'
	// delete a'
	// printer direct delivered 3 pending 0
}
