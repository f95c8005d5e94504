package listener

import (
	"testing"
	"testing/synctest"
	"time"
)

// stepHandler blocks in each call until the test lets one more call return.
type stepHandler struct{ step chan struct{} }

func (h stepHandler) OnAdd(any, bool)   { <-h.step }
func (h stepHandler) OnUpdate(_, _ any) { <-h.step }
func (h stepHandler) OnDelete(any)      { <-h.step }
func (h stepHandler) allow(calls int) {
	for range calls {
		h.step <- struct{}{}
	}
}
func newStepHandler() stepHandler { return stepHandler{step: make(chan struct{})} }

// A backlog that hovers at the lowest threshold logs one warning for the
// episode: after crossing 1000 it is not "caught up" at 999, nor falling
// behind again at 1000, but caught up once fewer than half the threshold
// (500) are pending. The moves are 11 s apart, past the messages' rate
// limit, so only the hysteresis keeps them quiet.
func TestBacklogWarningHysteresis(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		logs := &logRecorder{}
		h := newStepHandler()
		mustListener(t, p, h, newUpstream("inf"), Options{Engine: eng, Name: "slow", Logger: logs.logger()})
		stop := runProcessor(p)
		defer stop()
		defer func() { close(h.step) }()
		n := 0
		distribute := func(k int) {
			for range k {
				p.Distribute(NewAdd(n, false), false)
				n++
			}
			synctest.Wait()
		}
		distribute(1001) // the handler holds one, 1000 pending
		want := []string{msgCrossed + " pending=1000 threshold=1000"}
		wantCalls(t, "logs", logs.got(), want)
		for range 3 {
			time.Sleep(11 * time.Second)
			h.allow(1) // 999 pending
			synctest.Wait()
			time.Sleep(11 * time.Second)
			distribute(1) // 1000 pending
		}
		wantCalls(t, "logs", logs.got(), want)
		time.Sleep(11 * time.Second)
		h.allow(500) // 500 pending: not yet below half
		synctest.Wait()
		wantCalls(t, "logs", logs.got(), want)
		h.allow(1) // 499 pending
		synctest.Wait()
		want = append(want, msgDrained+" pending=499 threshold=1000")
		wantCalls(t, "logs", logs.got(), want)
		h.allow(499)
		synctest.Wait()
		wantCalls(t, "logs", logs.got(), want)
	})
}
