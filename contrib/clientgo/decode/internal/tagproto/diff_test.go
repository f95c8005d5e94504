package tagproto

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/schemetypes"
)

// marshaler is what every generated protobuf type implements.
type marshaler interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// protoTypes lists every type registered in client-go's scheme that has a
// protobuf form, in a stable order.
func protoTypes() []reflect.Type {
	return schemetypes.Sorted(func(t reflect.Type) bool { return reflect.PointerTo(t).Implements(reflect.TypeFor[marshaler]()) })
}

// filler returns a seeded filler of random objects: raw extensions get
// random bytes (randfill cannot fill their Object interface).
func filler(seed int64, maxElements, depth int) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, maxElements).MaxDepth(depth).Funcs(
		func(e *runtime.RawExtension, c randfill.Continue) { c.Fill(&e.Raw) },
	)
}

// generated decodes b with t's generated Unmarshal.
func generated(t reflect.Type, b []byte) (any, error) {
	v := reflect.New(t).Interface()
	return v, v.(marshaler).Unmarshal(b)
}

// ours decodes b with a Decoder, interning strings and sharing values
// when intern is set.
func ours(t reflect.Type, b []byte, intern bool) (any, error) {
	var d Decoder
	if intern {
		d.Strings = NewTable(64).String
		d.Values = NewValues(16)
	}
	v := reflect.New(t).Interface()
	return v, d.Unmarshal(b, v)
}

// randomEncoded fills an object of type t from r and returns its encoding.
func randomEncoded(tb testing.TB, t reflect.Type, f *randfill.Filler) []byte {
	tb.Helper()
	v := reflect.New(t).Interface()
	f.Fill(v)
	b, err := v.(marshaler).Marshal()
	if err != nil {
		tb.Fatalf("%s: marshal: %v", t, err)
	}
	return b
}

// requireSame decodes b both ways and fails unless they agree: both fail,
// or both succeed with deeply equal objects.
func requireSame(tb testing.TB, t reflect.Type, b []byte, intern bool) {
	tb.Helper()
	want, werr := generated(t, b)
	got, gerr := ours(t, b, intern)
	if (werr == nil) != (gerr == nil) {
		tb.Fatalf("%s: generated error %v, ours %v (input %x)", t, werr, gerr, b)
	}
	if werr == nil && !reflect.DeepEqual(want, got) {
		tb.Fatalf("%s: objects differ (input %x), -generated +ours:\n%s", t, b, cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })))
	}
}

// TestDifferentialEveryType decodes random objects of every built-in kind
// (and every type they contain) with generated code and with a Decoder,
// with and without interning, and requires the same objects.
func TestDifferentialEveryType(t *testing.T) {
	ts := protoTypes()
	if len(ts) < 300 {
		t.Fatalf("only %d protobuf types in client-go's scheme", len(ts))
	}
	n := 20
	if testing.Short() {
		n = 4
	}
	for i, typ := range ts {
		f := filler(int64(i), 3, 8)
		for range n {
			b := randomEncoded(t, typ, f)
			requireSame(t, typ, b, false)
			requireSame(t, typ, b, true)
		}
	}
}

// TestDifferentialShared decodes random objects of every built-in type,
// each twice, with one Decoder that shares values among them, and requires
// every object, checked again once all are decoded, to equal generated
// code's: sharing must give equal values and never let a later object
// change an earlier one.
func TestDifferentialShared(t *testing.T) {
	for i, typ := range protoTypes() {
		f := filler(int64(i), 3, 8)
		d := Decoder{Strings: NewTable(64).String, Values: NewValues(16)}
		var encs [][]byte
		var objs []any
		for range 10 {
			b := randomEncoded(t, typ, f)
			for range 2 {
				v := reflect.New(typ).Interface()
				if err := d.Unmarshal(b, v); err != nil {
					t.Fatalf("%s: %v", typ, err)
				}
				encs, objs = append(encs, b), append(objs, v)
			}
		}
		for k, b := range encs {
			want, err := generated(typ, b)
			if err != nil {
				t.Fatalf("%s: generated: %v", typ, err)
			}
			if !reflect.DeepEqual(want, objs[k]) {
				t.Fatalf("%s: object %d differs (input %x), -generated +shared:\n%s", typ, k, b, cmp.Diff(want, objs[k], cmp.Exporter(func(reflect.Type) bool { return true })))
			}
		}
	}
}

// TestDifferentialDamaged cuts and corrupts encodings and requires that
// both decoders fail on the same inputs and agree on the others.
func TestDifferentialDamaged(t *testing.T) {
	ts := protoTypes()
	r := rand.New(rand.NewPCG(1, 2))
	for i, typ := range ts {
		f := filler(int64(i), 2, 6)
		b := randomEncoded(t, typ, f)
		for range 10 {
			c := append([]byte(nil), b...)
			switch {
			case len(c) == 0:
			case r.IntN(2) == 0:
				c = c[:r.IntN(len(c))]
			default:
				c[r.IntN(len(c))] = byte(r.Uint32())
			}
			requireSame(t, typ, c, true)
		}
	}
}

// FuzzUnmarshal feeds arbitrary bytes, as any built-in type, to generated
// code and to a Decoder: both must fail, or build deeply equal objects.
func FuzzUnmarshal(f *testing.F) {
	ts := protoTypes()
	for i, typ := range ts {
		if i%7 != 0 {
			continue
		}
		fill := filler(int64(i), 2, 5)
		f.Add(uint16(i), randomEncoded(f, typ, fill))
	}
	f.Fuzz(func(t *testing.T, which uint16, b []byte) {
		requireSame(t, ts[int(which)%len(ts)], b, which&1 == 0)
	})
}

// TestEnvelopeAsUnknown decodes envelopes, whole, cut and corrupted, with
// UnmarshalEnvelope and with runtime.Unknown's Unmarshal, and requires the
// same errors and the same values, and Raw pointing into the input.
func TestEnvelopeAsUnknown(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	f := filler(3, 3, 4)
	for i := range 2000 {
		var u runtime.Unknown
		f.Fill(&u)
		b, err := u.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 && len(b) > 0 {
			if i%4 == 1 {
				b = b[:r.IntN(len(b))]
			} else {
				b[r.IntN(len(b))] = byte(r.Uint32())
			}
		}
		var want, got runtime.Unknown
		werr, gerr := want.Unmarshal(b), UnmarshalEnvelope(b, &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("input %x: generated error %v, ours %v", b, werr, gerr)
		}
		if werr != nil {
			continue
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("input %x: -generated +ours:\n%s", b, cmp.Diff(want, got))
		}
		if len(got.Raw) > 0 && !inside(got.Raw, b) {
			t.Fatalf("input %x: Raw is a copy", b)
		}
	}
}

// inside reports whether s lies within b's memory.
func inside(s, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	lo, hi := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[len(b)-1]))
	return uintptr(unsafe.Pointer(&s[0])) >= lo && uintptr(unsafe.Pointer(&s[len(s)-1])) <= hi
}
