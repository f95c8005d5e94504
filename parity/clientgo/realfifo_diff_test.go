//go:build !clientgo035

// Needs client-go v0.36 or later: RealFIFOOptions' atomic and unlock options, Bookmark, PopBatch.
// Builds that link an older client-go set the tag of its minor: clientgo035
// or clientgo036 (Makefile, hack/compat.sh).

package parity

import (
	"errors"
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/deltafifo"
)

// realFIFOPair is client-go's RealFIFO and fanout's, fed the same input.
// The helpers it uses live in deltafifo_diff_test.go.
type realFIFOPair struct {
	t        testing.TB
	identity bool
	world    diffWorld
	closed   bool

	cg      *cache.RealFIFO
	cgKnown cache.Store // nil in atomic mode
	fo      *deltafifo.RealFIFO
	foKnown mapStore // nil in atomic mode
}

// newRealFIFOPair builds both queues from the configuration byte: bit 0
// adds the transformer; bit 1 selects atomic mode (AtomicEvents, no
// KnownObjects), in which bit 2 turns UnlockWhileProcessing off and bit 3
// turns EmitDeltaTypeBookmark off. Without bit 1 the queues are non-atomic
// with KnownObjects.
func newRealFIFOPair(t testing.TB, config byte) *realFIFOPair {
	p := &realFIFOPair{t: t, identity: config&1 == 0}
	cgOpts := cache.RealFIFOOptions{KeyFunction: diffKey}
	foOpts := deltafifo.RealFIFOOptions{KeyFunction: diffKey}
	if config&1 != 0 {
		cgOpts.Transformer = diffTransform
		foOpts.Transformer = diffTransform
	}
	if config&2 != 0 {
		cgOpts.AtomicEvents, foOpts.AtomicEvents = true, true
		cgOpts.UnlockWhileProcessing, foOpts.UnlockWhileProcessing = config&4 == 0, config&4 == 0
		cgOpts.EmitDeltaTypeBookmark, foOpts.EmitDeltaTypeBookmark = config&8 == 0, config&8 == 0
	} else {
		p.cgKnown = cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
		p.foKnown = mapStore{}
		cgOpts.KnownObjects = sortedStore{p.cgKnown}
		foOpts.KnownObjects = p.foKnown
	}
	p.cg = cache.NewRealFIFOWithOptions(cgOpts)
	p.fo = deltafifo.NewRealFIFOWithOptions(foOpts)
	return p
}

// step applies op to both queues and compares the outcome.
func (p *realFIFOPair) step(i int, op diffOp) {
	t := p.t
	t.Helper()
	name := describeOp(i, op)
	handled, cgErr, foErr := applyWrite(&p.world, i, op, p.cg, p.fo)
	switch {
	case handled:
	case op.kind == opBookmark:
		rv := fmt.Sprint("bookmark-", i)
		cgErr, foErr = p.cg.Bookmark(rv), p.fo.Bookmark(rv)
	case op.kind == opClose:
		p.cg.Close()
		p.fo.Close()
		p.closed = true
	case op.kind == opPop, op.kind == opPopFail, op.kind == opPopBatch, op.kind == opPopBatchFail:
		if p.fo.Len() > 0 || p.closed {
			_ = p.pop(name, op.kind) // compared inside pop
		}
	}
	checkSame(t, name+" error", errText(cgErr), errText(foErr))
	checkSame(t, name+" HasSynced", p.cg.HasSynced(), p.fo.HasSynced())
	checkSame(t, name+" IsClosed", p.cg.IsClosed(), p.fo.IsClosed())
}

// pop runs one Pop or PopBatch on both queues and compares what the
// process functions saw, what was returned and HasSynced. Processed deltas
// reach the known stores unless processing fails.
func (p *realFIFOPair) pop(name string, kind opKind) error {
	t := p.t
	t.Helper()
	fail := kind == opPopFail || kind == opPopBatchFail
	var cg, fo popResult
	cgProcess := func(via string) func(ds []cache.Delta, initial bool) error {
		return func(ds []cache.Delta, initial bool) error {
			cg.Via, cg.Processed, cg.Initial = via, canonClientGo(ds, p.identity), initial
			if fail {
				return errProcess
			}
			if p.cgKnown != nil {
				applyClientGo(p.cgKnown, ds)
			}
			return nil
		}
	}
	foProcess := func(via string) func(ds []deltafifo.Delta, initial bool) error {
		return func(ds []deltafifo.Delta, initial bool) error {
			fo.Via, fo.Processed, fo.Initial = via, canonFanout(ds, p.identity), initial
			if fail {
				return errProcess
			}
			if p.foKnown != nil {
				p.foKnown.apply(ds)
			}
			return nil
		}
	}
	cgSingle := func(obj any, initial bool) error { return cgProcess("single")(obj.(cache.Deltas), initial) }
	foSingle := func(obj any, initial bool) error { return foProcess("single")(obj.(deltafifo.Deltas), initial) }

	var cgErr, foErr error
	if kind == opPopBatch || kind == opPopBatchFail {
		guardPop(t, p.cg.Close, func() { cgErr = p.cg.PopBatch(cgProcess("batch"), cgSingle) })
		foErr = p.fo.PopBatch(foProcess("batch"), foSingle)
	} else {
		var cgItem, foItem any
		guardPop(t, p.cg.Close, func() { cgItem, cgErr = p.cg.Pop(cgSingle) })
		foItem, foErr = p.fo.Pop(foSingle)
		if ds, ok := cgItem.(cache.Deltas); ok {
			cg.Returned = canonClientGo(ds, p.identity)
		}
		if ds, ok := foItem.(deltafifo.Deltas); ok {
			fo.Returned = canonFanout(ds, p.identity)
		}
	}
	cg.Err, fo.Err = errText(cgErr), errText(foErr)
	cg.HasSynced, fo.HasSynced = p.cg.HasSynced(), p.fo.HasSynced()
	checkSame(t, name+" Pop", cg, fo)
	return foErr
}

// drain closes both queues and pops, alternating Pop and PopBatch, until
// both report ErrFIFOClosed.
func (p *realFIFOPair) drain() {
	p.cg.Close()
	p.fo.Close()
	p.closed = true
	for i := 0; ; i++ {
		kind := opPop
		if i%2 == 1 {
			kind = opPopBatch
		}
		if err := p.pop(fmt.Sprintf("drain %d", i), kind); errors.Is(err, deltafifo.ErrFIFOClosed) {
			return
		}
	}
}

// runRealFIFODiff decodes data and runs it against both RealFIFOs.
func runRealFIFODiff(t testing.TB, data []byte) {
	config, ops := decodeOps(data, []opKind{
		opAdd, opUpdate, opDelete, opReplace, opResync, opPop, opPopFail,
		opClose, opBookmark, opPopBatch, opPopBatchFail,
	})
	p := newRealFIFOPair(t, config)
	for i, op := range ops {
		p.step(i, op)
	}
	p.drain()
}

// realFIFOSeeds are hand-written inputs for both modes. Operation bytes:
// 0 Add, 1 Update, 2 Delete, 3 Replace, 4 Resync, 5 Pop, 6 Pop failing,
// 7 Close, 8 Bookmark, 9 PopBatch, 10 PopBatch failing.
var realFIFOSeeds = [][]byte{
	{},
	// Non-atomic: bookmark first, relist, batch pops, relist with missing
	// and new keys, resync.
	{0, 8, 3, 0b00111, 0xf3, 9, 9, 3, 0b11010, 0xf3, 4, 9, 9, 9},
	// Non-atomic with transformer: adds, duplicate key in a batch,
	// transform refusal, failing batch.
	{1, 0, 0, 0, 1, 1, 0, 0, 6, 9, 10, 3, 0b00001, 0xf2, 9, 5},
	// Atomic: bookmark, relist, resync, batch stops at non-batchable types.
	{2, 8, 3, 0b00111, 0xf0, 0, 0, 0, 1, 8, 4, 0, 2, 9, 9, 9, 9, 9},
	// Atomic, locked processing, no bookmarks, key errors.
	{14, 0, 5, 2, 5, 3, 0b00011, 0xf1, 8, 5, 5, 7, 0, 9, 9},
	// Non-atomic: deletes of unknown keys, relist after deletions.
	{0, 2, 3, 0, 0, 2, 0, 3, 0b00100, 0xf3, 5, 5, 5, 5, 4, 5},
}

func FuzzRealFIFODifferential(f *testing.F) {
	for _, s := range realFIFOSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runRealFIFODiff(t, data)
	})
}

func TestRealFIFODifferentialSeeds(t *testing.T) {
	for i, data := range seededInputs(300) {
		t.Run(fmt.Sprint("seed=", i), func(t *testing.T) {
			runRealFIFODiff(t, data)
		})
	}
}
