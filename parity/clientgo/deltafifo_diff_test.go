//go:build !clientgo035

// Needs client-go v0.36 or later: ReplacedAllInfo, SyncAllInfo, BookmarkInfo.
// Builds that link an older client-go set the tag of its minor: clientgo035
// or clientgo036 (Makefile, hack/compat.sh).

package parity

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/deltafifo"
)

// This file holds the differential test of fanout's DeltaFIFO against
// client-go's, and the helpers that realfifo_diff_test.go shares: the
// decoding of fuzz bytes into operations, the objects, the key function and
// transformer both queues use, the known-objects stores, and the canonical
// form in which deltas from either library are compared.

const (
	// diffMaxInput bounds the bytes of one input that are decoded. Short
	// inputs keep the fuzzer's minimization (quadratic in the input length)
	// quick; a few dozen operations over five keys reach every rule.
	diffMaxInput = 160
	// diffBlockedAfter is how long a client-go Pop may wait before the test
	// declares that client-go's queue is empty while fanout's is not. It is
	// a deadlock guard, not a timing assertion.
	diffBlockedAfter = 30 * time.Second
	diffNamespace    = "ns"
	// diffBadName is a name the key function refuses.
	diffBadName = "bad"
)

var diffNames = []string{"a", "b", "c", "d", "e"}

// errProcess is what a failing process function returns.
var errProcess = errors.New("process failed")

// diffKey is the key function of both queues: MetaNamespaceKeyFunc's
// format, with an error for objects named diffBadName.
func diffKey(obj any) (string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object has no meta: %v", err)
	}
	if m.GetName() == diffBadName {
		return "", errors.New("refusing to key an object named bad")
	}
	return m.GetNamespace() + "/" + m.GetName(), nil
}

// diffTransform copies a ConfigMap and appends "x" to its "transformed"
// annotation, so that every application is visible. It fails for objects
// labelled fail=true.
func diffTransform(obj any) (any, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return obj, nil
	}
	if cm.Labels["fail"] == "true" {
		return nil, errors.New("transform refused")
	}
	out := cm.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations["transformed"] += "x"
	return out, nil
}

// opKind is one operation on both queues.
type opKind int

const (
	opAdd opKind = iota
	opUpdate
	opDelete
	opReplace
	opResync
	opPop
	opPopFail
	opClose
	opBookmark
	opPopBatch
	opPopBatchFail
)

var opNames = [...]string{"Add", "Update", "Delete", "Replace", "Resync", "Pop", "PopFail", "Close", "Bookmark", "PopBatch", "PopBatchFail"}

func (k opKind) String() string { return opNames[k] }

// diffOp is one decoded operation. Objects are made when it runs.
type diffOp struct {
	kind opKind
	// obj is the object of Add, Update and Delete.
	obj objSpec
	// list is the content of Replace.
	list []objSpec
}

// objSpec describes an object: its name, and whether the transformer
// refuses it.
type objSpec struct {
	name string
	fail bool
}

// byteReader hands out the fuzz input one byte at a time, then zeros.
type byteReader struct {
	b []byte
}

func (r *byteReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// decodeOps turns the first diffMaxInput bytes of fuzz input into a
// configuration byte and operations drawn from kinds.
func decodeOps(data []byte, kinds []opKind) (config byte, ops []diffOp) {
	r := &byteReader{b: data[:min(len(data), diffMaxInput)]}
	config = r.next()
	for len(r.b) > 0 {
		op := diffOp{kind: kinds[int(r.next())%len(kinds)]}
		switch op.kind {
		case opAdd, opUpdate, opDelete:
			op.obj = decodeObj(r.next())
		case opReplace:
			op.list = decodeList(r.next(), r.next())
		case opClose:
			// Closing ends most of the interesting behaviour; make it rare.
			if r.next()%8 != 0 {
				op.kind = opPop
			}
		}
		ops = append(ops, op)
	}
	return config, ops
}

// decodeObj picks one of the names, the refused name, or a name whose
// object the transformer refuses.
func decodeObj(c byte) objSpec {
	switch v := int(c) % 7; v {
	case 5:
		return objSpec{name: diffBadName}
	case 6:
		return objSpec{name: diffNames[int(c/7)%len(diffNames)], fail: true}
	default:
		return objSpec{name: diffNames[v]}
	}
}

// decodeList picks the names of a relist from mask, rotated, and sometimes
// adds a duplicate, a refused name or an object the transformer refuses.
func decodeList(mask, extra byte) []objSpec {
	var list []objSpec
	rot := int(extra>>4) % len(diffNames)
	for i := range diffNames {
		j := (i + rot) % len(diffNames)
		if mask&(1<<j) != 0 {
			list = append(list, objSpec{name: diffNames[j]})
		}
	}
	switch extra & 7 {
	case 0:
		list = append(list, objSpec{name: diffBadName})
	case 1:
		list = append(list, objSpec{name: diffNames[int(extra>>3)%len(diffNames)], fail: true})
	case 2:
		if len(list) > 0 {
			list = append(list, list[0])
		}
	}
	return list
}

// diffWorld makes the objects both queues receive: every call gives a new
// object with the next resource version.
type diffWorld struct {
	rv int
}

func (w *diffWorld) object(s objSpec) *corev1.ConfigMap {
	w.rv++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace:       diffNamespace,
		Name:            s.name,
		ResourceVersion: fmt.Sprint(w.rv),
	}}
	if s.fail {
		cm.Labels = map[string]string{"fail": "true"}
	}
	return cm
}

func (w *diffWorld) list(specs []objSpec) []any {
	out := make([]any, len(specs))
	for i, s := range specs {
		out[i] = w.object(s)
	}
	return out
}

// sortedStore is client-go's store with ListKeys sorted, so that the order
// of the tombstones Replace makes for known keys does not depend on map
// iteration.
type sortedStore struct {
	cache.Store
}

func (s sortedStore) ListKeys() []string {
	keys := s.Store.ListKeys()
	sort.Strings(keys)
	return keys
}

// applyClientGo records popped deltas in client-go's known-objects store
// the way an informer's store would.
func applyClientGo(s cache.Store, ds []cache.Delta) {
	for _, d := range ds {
		switch d.Type {
		case cache.Deleted:
			_ = s.Delete(d.Object)
		case cache.Added, cache.Updated, cache.Sync, cache.Replaced:
			_ = s.Update(d.Object)
		}
	}
}

// mapStore is fanout's side's known-objects store: a map with sorted keys.
type mapStore map[string]any

func (m mapStore) ListKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (m mapStore) GetByKey(key string) (any, bool, error) {
	v, ok := m[key]
	return v, ok, nil
}

// apply records popped deltas as applyClientGo does.
func (m mapStore) apply(ds []deltafifo.Delta) {
	for _, d := range ds {
		key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if err != nil {
			continue
		}
		switch d.Type {
		case deltafifo.Deleted:
			delete(m, key)
		case deltafifo.Added, deltafifo.Updated, deltafifo.Sync, deltafifo.Replaced:
			m[key] = d.Object
		}
	}
}

// canonDelta is a delta from either library in comparable form.
type canonDelta struct {
	Type string
	Obj  any
}

type canonTomb struct {
	Key string
	Obj any
}

type canonReplacedAll struct {
	RV   string
	Objs []any
}

type canonBookmark struct{ RV string }

type canonSyncAll struct{}

// canonObject describes a ConfigMap by everything the queues may change,
// plus its address when identity must be preserved (no transformer).
func canonObject(obj any, identity bool) any {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return obj
	}
	s := fmt.Sprintf("%s/%s@%s labels=%v ann=%v", cm.Namespace, cm.Name, cm.ResourceVersion, cm.Labels, cm.Annotations)
	if identity {
		s += fmt.Sprintf(" at %p", cm)
	}
	return s
}

func canonClientGo(ds []cache.Delta, identity bool) []canonDelta {
	out := make([]canonDelta, len(ds))
	for i, d := range ds {
		var obj any
		switch o := d.Object.(type) {
		case cache.DeletedFinalStateUnknown:
			obj = canonTomb{Key: o.Key, Obj: canonObject(o.Obj, identity)}
		case cache.ReplacedAllInfo:
			objs := make([]any, len(o.Objects))
			for j, x := range o.Objects {
				objs[j] = canonObject(x, identity)
			}
			obj = canonReplacedAll{RV: o.ResourceVersion, Objs: objs}
		case cache.BookmarkInfo:
			obj = canonBookmark{RV: o.ResourceVersion}
		case cache.SyncAllInfo:
			obj = canonSyncAll{}
		default:
			obj = canonObject(o, identity)
		}
		out[i] = canonDelta{Type: string(d.Type), Obj: obj}
	}
	return out
}

func canonFanout(ds []deltafifo.Delta, identity bool) []canonDelta {
	out := make([]canonDelta, len(ds))
	for i, d := range ds {
		var obj any
		switch o := d.Object.(type) {
		case deltafifo.DeletedFinalStateUnknown:
			obj = canonTomb{Key: o.Key, Obj: canonObject(o.Obj, identity)}
		case deltafifo.ReplacedAllInfo:
			objs := make([]any, len(o.Objects))
			for j, x := range o.Objects {
				objs[j] = canonObject(x, identity)
			}
			obj = canonReplacedAll{RV: o.ResourceVersion, Objs: objs}
		case deltafifo.BookmarkInfo:
			obj = canonBookmark{RV: o.ResourceVersion}
		case deltafifo.SyncAllInfo:
			obj = canonSyncAll{}
		default:
			obj = canonObject(o, identity)
		}
		out[i] = canonDelta{Type: string(d.Type), Obj: obj}
	}
	return out
}

// popResult is what one Pop or PopBatch did, in comparable form.
type popResult struct {
	// Via is "single" or "batch": which process function ran, or "" if
	// none did.
	Via       string
	Processed []canonDelta
	Initial   bool
	Returned  []canonDelta
	Err       string
	HasSynced bool
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// guardPop runs a client-go Pop that should not block. If it is still
// blocked after diffBlockedAfter, the queue is closed to release it and the
// test fails.
func guardPop(t testing.TB, closeQueue func(), pop func()) {
	t.Helper()
	timer := time.AfterFunc(diffBlockedAfter, closeQueue)
	pop()
	if !timer.Stop() {
		t.Fatalf("client-go's Pop blocked: its queue is empty while fanout's is not")
	}
}

// checkSame fails the test with the step and both values if they differ.
func checkSame(t testing.TB, step string, clientGo, fanout any) {
	t.Helper()
	if !reflect.DeepEqual(clientGo, fanout) {
		t.Fatalf("%s differs:\nclient-go: %+v\nfanout:    %+v", step, clientGo, fanout)
	}
}

// describeOp prints an operation for failure messages.
func describeOp(i int, op diffOp) string {
	return fmt.Sprintf("op %d %v obj=%+v list=%+v", i, op.kind, op.obj, op.list)
}

// deltaFIFOPair is client-go's DeltaFIFO and fanout's, fed the same input.
type deltaFIFOPair struct {
	t        testing.TB
	identity bool
	world    diffWorld
	closed   bool

	cg      *cache.DeltaFIFO
	cgKnown cache.Store // nil without KnownObjects
	fo      *deltafifo.DeltaFIFO
	foKnown mapStore // nil without KnownObjects
}

// newDeltaFIFOPair builds both queues from the configuration byte: bit 0
// adds the transformer, bit 1 sets EmitDeltaTypeReplaced, bit 2 leaves
// KnownObjects out.
func newDeltaFIFOPair(t testing.TB, config byte) *deltaFIFOPair {
	p := &deltaFIFOPair{t: t, identity: config&1 == 0}
	cgOpts := cache.DeltaFIFOOptions{KeyFunction: diffKey, EmitDeltaTypeReplaced: config&2 != 0}
	foOpts := deltafifo.DeltaFIFOOptions{KeyFunction: diffKey, EmitDeltaTypeReplaced: config&2 != 0}
	if config&1 != 0 {
		cgOpts.Transformer = diffTransform
		foOpts.Transformer = diffTransform
	}
	if config&4 == 0 {
		p.cgKnown = cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
		p.foKnown = mapStore{}
		cgOpts.KnownObjects = sortedStore{p.cgKnown}
		foOpts.KnownObjects = p.foKnown
	}
	p.cg = cache.NewDeltaFIFOWithOptions(cgOpts)
	p.fo = deltafifo.NewDeltaFIFOWithOptions(foOpts)
	return p
}

// step applies op to both queues and compares the outcome.
func (p *deltaFIFOPair) step(i int, op diffOp) {
	t := p.t
	t.Helper()
	name := describeOp(i, op)
	handled, cgErr, foErr := applyWrite(&p.world, i, op, p.cg, p.fo)
	switch {
	case handled:
	case op.kind == opClose:
		p.cg.Close()
		p.fo.Close()
		p.closed = true
	case op.kind == opPop || op.kind == opPopFail:
		if p.fo.Len() > 0 || p.closed {
			_ = p.pop(name, op.kind == opPopFail) // compared inside pop
		}
	}
	checkSame(t, name+" error", errText(cgErr), errText(foErr))
	checkSame(t, name+" HasSynced", p.cg.HasSynced(), p.fo.HasSynced())
	checkSame(t, name+" IsClosed", p.cg.IsClosed(), p.fo.IsClosed())
}

// pop pops once from both queues and compares what process saw, what Pop
// returned and HasSynced. Popped deltas reach the known stores unless
// process fails.
func (p *deltaFIFOPair) pop(name string, fail bool) (gotErr error) {
	t := p.t
	t.Helper()
	var cg, fo popResult
	var cgItem, foItem any
	var cgErr, foErr error
	guardPop(t, p.cg.Close, func() {
		cgItem, cgErr = p.cg.Pop(func(obj any, initial bool) error {
			ds := obj.(cache.Deltas)
			cg.Via, cg.Processed, cg.Initial = "single", canonClientGo(ds, p.identity), initial
			if fail {
				return errProcess
			}
			if p.cgKnown != nil {
				applyClientGo(p.cgKnown, ds)
			}
			return nil
		})
	})
	foItem, foErr = p.fo.Pop(func(obj any, initial bool) error {
		ds := obj.(deltafifo.Deltas)
		fo.Via, fo.Processed, fo.Initial = "single", canonFanout(ds, p.identity), initial
		if fail {
			return errProcess
		}
		if p.foKnown != nil {
			p.foKnown.apply(ds)
		}
		return nil
	})
	if ds, ok := cgItem.(cache.Deltas); ok {
		cg.Returned = canonClientGo(ds, p.identity)
	}
	if ds, ok := foItem.(deltafifo.Deltas); ok {
		fo.Returned = canonFanout(ds, p.identity)
	}
	cg.Err, fo.Err = errText(cgErr), errText(foErr)
	cg.HasSynced, fo.HasSynced = p.cg.HasSynced(), p.fo.HasSynced()
	checkSame(t, name+" Pop", cg, fo)
	return foErr
}

// drain closes both queues and pops until both report ErrFIFOClosed.
func (p *deltaFIFOPair) drain() {
	p.cg.Close()
	p.fo.Close()
	p.closed = true
	for i := 0; ; i++ {
		if err := p.pop(fmt.Sprintf("drain %d", i), false); errors.Is(err, deltafifo.ErrFIFOClosed) {
			return
		}
	}
}

// runDeltaFIFODiff decodes data and runs it against both DeltaFIFOs.
func runDeltaFIFODiff(t testing.TB, data []byte) {
	config, ops := decodeOps(data, []opKind{opAdd, opUpdate, opDelete, opReplace, opResync, opPop, opPopFail, opClose})
	p := newDeltaFIFOPair(t, config)
	for i, op := range ops {
		p.step(i, op)
	}
	p.drain()
}

// deltaFIFOSeeds are hand-written inputs: relists with missing and new
// objects, deletions of known and unknown keys, failures, close.
var deltaFIFOSeeds = [][]byte{
	{},
	{0, 0, 0, 0, 1, 5, 5},
	// Replace a,b,c; pop one; replace b,d (a and c missing); drain.
	{0, 3, 0b00111, 0xf3, 5, 3, 0b01010, 0xf3, 5, 5, 5, 5},
	// The same with EmitDeltaTypeReplaced and the transformer.
	{3, 3, 0b00111, 0xf3, 5, 3, 0b01010, 0xf3, 4, 5, 5, 5, 5},
	// Add, delete twice, replace without it (tombstone after a deletion).
	{0, 0, 0, 2, 0, 2, 0, 3, 0b00010, 0xf3, 5, 5},
	// No KnownObjects: delete of an unknown key is ignored.
	{4, 2, 1, 0, 1, 2, 1, 5, 5},
	// Key error on Add, Delete and inside Replace; transform refusal.
	{1, 0, 5, 2, 5, 3, 0b00011, 0xf0, 0, 6, 3, 0b00011, 0xf1, 5},
	// Resync after the known store has filled; pop failures.
	{0, 3, 0b11111, 0xf3, 5, 5, 6, 5, 5, 4, 5, 6, 5, 5},
	// Close early, keep adding, drain.
	{0, 0, 0, 7, 0, 0, 1, 5, 5, 5},
}

func FuzzDeltaFIFODifferential(f *testing.F) {
	for _, s := range deltaFIFOSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runDeltaFIFODiff(t, data)
	})
}

// seededInputs returns n reproducible random inputs for the seeded tests.
func seededInputs(n int) [][]byte {
	out := make([][]byte, n)
	for seed := range out {
		r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		b := make([]byte, 1+r.IntN(diffMaxInput))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		out[seed] = b
	}
	return out
}

func TestDeltaFIFODifferentialSeeds(t *testing.T) {
	for i, data := range seededInputs(300) {
		t.Run(fmt.Sprint("seed=", i), func(t *testing.T) {
			runDeltaFIFODiff(t, data)
		})
	}
}

// diffWriter is the writing side of a queue; client-go's and fanout's
// queues both have it, since its methods use only builtin types.
type diffWriter interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Resync() error
}

// applyWrite applies op to both queues if it is a write (add, update,
// delete, replace or resync) and returns their errors; handled is false
// for any other op. A replace of step i is at resourceVersion "list-i".
func applyWrite(w *diffWorld, i int, op diffOp, cg, fo diffWriter) (handled bool, cgErr, foErr error) {
	switch op.kind {
	case opAdd:
		obj := w.object(op.obj)
		return true, cg.Add(obj), fo.Add(obj)
	case opUpdate:
		obj := w.object(op.obj)
		return true, cg.Update(obj), fo.Update(obj)
	case opDelete:
		obj := w.object(op.obj)
		return true, cg.Delete(obj), fo.Delete(obj)
	case opReplace:
		list, rv := w.list(op.list), fmt.Sprint("list-", i)
		return true, cg.Replace(list, rv), fo.Replace(list, rv)
	case opResync:
		return true, cg.Resync(), fo.Resync()
	}
	return false, nil, nil
}
