package transform

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// shareLeaf and shareObj are arbitrary values for FuzzShareEqualValues:
// every kind the transform walks, named types, and unexported fields.
type shareLeaf struct {
	S      string
	N      int32
	F      float64
	B      []byte
	P      *string
	Tags   shareTags
	hidden string
}

type (
	shareName string
	shareTags []shareName
)

type shareObj struct {
	Name   string
	Labels map[string]string
	Leaves []shareLeaf
	Ptr    *shareLeaf
	ByName map[shareName]shareLeaf
	Any    any
	Arr    [2]string
	Nested map[string][]string
	Fn     func()
	hidden *shareLeaf
}

// shareGen builds a value from fuzz input, the same each time for the
// same input. Few distinct strings, so that values repeat.
type shareGen struct {
	data []byte
	i    int
}

func (g *shareGen) b() byte {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return g.data[g.i-1]
}

func (g *shareGen) str() string {
	switch g.b() % 5 {
	case 0:
		return ""
	case 1:
		return "a"
	case 2:
		return strings.Repeat("b", 2)
	case 3:
		return strings.Repeat("c", 20)
	default:
		return strconv.Itoa(int(g.b() % 4))
	}
}

func (g *shareGen) leaf() shareLeaf {
	l := shareLeaf{S: g.str(), N: int32(g.b() % 3), F: float64(g.b()%3) / 2, hidden: g.str()}
	switch g.b() % 3 {
	case 1:
		l.B = []byte{}
	case 2:
		l.B = []byte(g.str() + "x")
	}
	if g.b()%2 == 1 {
		s := g.str()
		l.P = &s
	}
	for range g.b() % 3 {
		l.Tags = append(l.Tags, shareName(g.str()))
	}
	return l
}

func (g *shareGen) obj() *shareObj {
	o := &shareObj{Name: g.str(), Arr: [2]string{g.str(), g.str()}}
	if n := g.b() % 4; n > 0 {
		o.Labels = map[string]string{}
		for range n - 1 {
			o.Labels[g.str()] = g.str()
		}
	}
	for range g.b() % 3 {
		o.Leaves = append(o.Leaves, g.leaf())
	}
	if g.b()%2 == 1 {
		l := g.leaf()
		o.Ptr = &l
	}
	if n := g.b() % 3; n > 0 {
		o.ByName = map[shareName]shareLeaf{}
		for range n {
			o.ByName[shareName(g.str())] = g.leaf()
		}
	}
	switch g.b() % 4 {
	case 1:
		o.Any = g.str()
	case 2:
		o.Any = g.leaf()
	case 3:
		o.Any = map[string]any{g.str(): []any{g.str(), int64(g.b() % 2)}}
	}
	if g.b()%2 == 1 {
		o.Nested = map[string][]string{g.str(): {g.str(), g.str()}}
	}
	if g.b()%2 == 1 {
		l := g.leaf()
		o.hidden = &l
	}
	return o
}

// FuzzShareEqualValues transforms a sequence of values built from the
// input and checks that every one, including those transformed earlier
// (whose parts later ones may now share), still equals a copy built
// afresh, and that a second pass changes nothing.
func FuzzShareEqualValues(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Add([]byte(strings.Repeat("\x01\x02\x03\x04", 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		const n = 6
		built := func() []*shareObj {
			var out []*shareObj
			for k := range n {
				// Each value starts at its own offset, so that
				// values overlap in their parts.
				g := &shareGen{data: data, i: k * len(data) / (2 * n)}
				out = append(out, g.obj())
			}
			return out
		}
		tr := ShareEqualValues()
		objs := built()
		for _, o := range objs {
			if _, err := tr(o); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range objs {
			if _, err := tr(o); err != nil {
				t.Fatal(err)
			}
		}
		for k, want := range built() {
			if !reflect.DeepEqual(want, objs[k]) {
				t.Fatalf("value %d changed:\n got %#v\nwant %#v", k, objs[k], want)
			}
		}
	})
}
