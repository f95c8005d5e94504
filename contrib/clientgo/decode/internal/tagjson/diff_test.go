package tagjson

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/tagproto"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/schemetypes"
)

// schemeTypes lists every type registered in client-go's scheme, in a
// stable order.
func schemeTypes() []reflect.Type {
	return schemetypes.Sorted(func(reflect.Type) bool { return true })
}

// filler returns a seeded filler of random objects whose JSON encoding
// succeeds: times within the years JSON can hold, quantities that parse,
// raw extensions and managed fields holding JSON.
func filler(seed int64, maxElements, depth int) *randfill.Filler {
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, maxElements).MaxDepth(depth).Funcs(
		func(e *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				e.Raw = fmt.Appendf(nil, `{"a":%d,"b":[%q]}`, c.Int63(), c.String(5))
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.Unix(r.Int64N(4e9), 0)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(r.Int64N(4e9), r.Int64N(1e9)))
		},
		func(m *metav1.FieldsV1, c randfill.Continue) {
			m.Raw = fmt.Appendf(nil, `{"f:metadata":{"f:labels":{%q:{}}}}`, c.String(8))
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(r.Int64N(1e9), resource.DecimalSI)
		},
	)
}

// reference decodes b as client-go's JSON serializer does.
func reference(t reflect.Type, b []byte) (any, error) {
	v := reflect.New(t).Interface()
	return v, kjson.UnmarshalCaseSensitivePreserveInts(b, v)
}

// ours decodes b with a Decoder, interning strings when intern is set.
func ours(t reflect.Type, b []byte, intern bool) (any, error) {
	var d Decoder
	if intern {
		d.Strings = tagproto.NewTable(64).String
	}
	v := reflect.New(t).Interface()
	return v, d.Unmarshal(b, v)
}

// randomEncoded fills an object of type t and returns its JSON, or false
// when encoding/json refuses the random value.
func randomEncoded(t reflect.Type, f *randfill.Filler) (b []byte, ok bool) {
	defer func() {
		if recover() != nil { // a field randfill cannot fill (an interface)
			b, ok = nil, false
		}
	}()
	v := reflect.New(t).Interface()
	f.Fill(v)
	b, err := json.Marshal(v)
	return b, err == nil && len(b) > 0
}

// requireAgrees decodes b both ways and fails when the Decoder succeeds
// where the reference fails or builds a different object. It reports
// whether the Decoder succeeded.
func requireAgrees(tb testing.TB, t reflect.Type, b []byte, intern bool) bool {
	tb.Helper()
	want, werr := reference(t, b)
	got, gerr := ours(t, b, intern)
	if gerr != nil {
		return false
	}
	if werr != nil {
		tb.Fatalf("%s: the reference fails (%v), ours succeeds (input %s)", t, werr, b)
	}
	if !reflect.DeepEqual(want, got) {
		tb.Fatalf("%s: objects differ (input %s), -reference +ours:\n%s", t, b, cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })))
	}
	return true
}

// unstructuredType is what unstructured objects are decoded into.
var unstructuredType = reflect.TypeFor[map[string]any]()

// TestDifferentialEveryType decodes the JSON of random objects of every
// built-in kind with the reference decoder and with a Decoder, with and
// without interning, as their type and as unstructured content, and
// requires the Decoder to succeed on every one and build the same
// objects.
func TestDifferentialEveryType(t *testing.T) {
	ts := schemeTypes()
	if len(ts) < 300 {
		t.Fatalf("only %d types in client-go's scheme", len(ts))
	}
	n := 20
	if testing.Short() {
		n = 4
	}
	encoded := 0
	for i, typ := range ts {
		f := filler(int64(i), 3, 8)
		for range n {
			b, ok := randomEncoded(typ, f)
			if !ok {
				continue
			}
			encoded++
			for _, intern := range []bool{false, true} {
				for _, as := range []reflect.Type{typ, unstructuredType} {
					if !requireAgrees(t, as, b, intern) {
						_, err := ours(as, b, intern)
						t.Fatalf("%s as %s: the Decoder fails on encoding/json's output (%v): %s", typ, as, err, b)
					}
				}
			}
		}
	}
	if encoded < len(ts)*n*9/10 {
		t.Fatalf("only %d of %d random objects could be encoded", encoded, len(ts)*n)
	}
}

// damage cuts, corrupts, or inserts a JSON token into b.
func damage(r *rand.Rand, b []byte) []byte {
	c := append([]byte(nil), b...)
	if len(c) == 0 {
		return c
	}
	tokens := []string{`null`, `"x"`, `1`, `-1.5e3`, `[]`, `{}`, `true`, `,`, `:`, `"\u00e9"`, `"`, `\`, `99999999999999999999`}
	switch r.IntN(4) {
	case 0:
		return c[:r.IntN(len(c))]
	case 1:
		c[r.IntN(len(c))] = byte(r.Uint32())
		return c
	default:
		i := r.IntN(len(c))
		return append(c[:i:i], append([]byte(tokens[r.IntN(len(tokens))]), c[i:]...)...)
	}
}

// TestDifferentialDamaged cuts, corrupts and splices encodings: where the
// Decoder succeeds, the reference must succeed with the same object, and
// the Decoder must not fail on most of what the reference accepts.
func TestDifferentialDamaged(t *testing.T) {
	ts := schemeTypes()
	r := rand.New(rand.NewPCG(1, 2))
	refOK, oursOK := 0, 0
	for i, typ := range ts {
		f := filler(int64(i), 2, 6)
		b, ok := randomEncoded(typ, f)
		if !ok {
			continue
		}
		for range 10 {
			c := damage(r, b)
			if _, err := reference(typ, c); err == nil {
				refOK++
			}
			if requireAgrees(t, typ, c, true) {
				oursOK++
			}
			requireAgrees(t, unstructuredType, c, true)
		}
	}
	t.Logf("damaged inputs: the reference accepts %d, the Decoder %d", refOK, oursOK)
	if oursOK*10 < refOK*8 {
		t.Fatalf("the Decoder accepts %d of the %d damaged inputs the reference accepts", oursOK, refOK)
	}
}

// FuzzUnmarshal feeds arbitrary bytes, as any built-in type or as
// unstructured content, to the
// reference decoder and to a Decoder: where the Decoder succeeds, both
// must build deeply equal objects.
func FuzzUnmarshal(f *testing.F) {
	ts := append(schemeTypes(), unstructuredType)
	for i, typ := range ts {
		if i%7 != 0 {
			continue
		}
		if b, ok := randomEncoded(typ, filler(int64(i), 2, 5)); ok {
			f.Add(uint16(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, b []byte) {
		requireAgrees(t, ts[int(which)%len(ts)], b, which&1 == 0)
	})
}
