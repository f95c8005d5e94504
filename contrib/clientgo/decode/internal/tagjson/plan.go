package tagjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/plancache"
)

// kind is how a value of one Go type is decoded.
type kind uint8

const (
	kDelegate kind = iota // handed to the reference decoder
	kString               // a string kind
	kBool                 // a bool kind
	kInt                  // a signed integer kind
	kUint                 // an unsigned integer kind
	kFloat                // float32 or float64
	kStruct               // a struct, field by field
	kPointer              // a pointer to elem
	kSlice                // a slice of elem (not []byte)
	kMap                  // a map from a string kind to elem
	kAny                  // an empty interface: maps, slices, strings, int64, float64, bool, nil
)

// plan says how to decode one Go type.
type plan struct {
	typ    reflect.Type
	kind   kind
	bits   int               // kInt, kUint, kFloat: the size in bits
	elem   *plan             // kPointer, kSlice, kMap
	fields map[string]*field // kStruct: by JSON name
	nf     int               // kStruct: the number of fields
	plain  bool              // kMap: a map[string]string
}

// field is one decodable field of a struct, promoted ones included.
type field struct {
	offset uintptr // from the start of the outer struct
	index  int     // in the struct's plan, for duplicate checks
	plan   *plan
}

// maxFields bounds the fields of a struct decoded field by field; a
// larger one is delegated.
const maxFields = 256

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	plainMap        = reflect.TypeFor[map[string]string]()
	anyMap          = reflect.TypeFor[map[string]any]()
)

var plans plancache.Cache[*plan]

// planFor returns the plan of t, building it on first use.
func planFor(t reflect.Type) *plan {
	return plans.Get(t, build)
}

// build makes the plan of t and of every type it reaches, recording each
// in building so that recursive types end.
func build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Known(t, building); ok {
		return p
	}
	p := &plan{typ: t}
	building[t] = p
	if ownForm(t) {
		return p
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = kString
	case reflect.Bool:
		p.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind, p.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind, p.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		p.kind, p.bits = kFloat, t.Bits()
	case reflect.Pointer:
		p.kind, p.elem = kPointer, build(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			p.kind, p.elem = kSlice, build(t.Elem(), building)
		}
	case reflect.Map:
		k := t.Key()
		if k.Kind() == reflect.String && !ownForm(k) {
			p.kind, p.elem, p.plain = kMap, build(t.Elem(), building), t == plainMap
		}
	case reflect.Interface:
		if t.NumMethod() == 0 {
			p.kind = kAny
		}
	case reflect.Struct:
		if fields, ok := structFields(t, building); ok {
			p.kind, p.fields, p.nf = kStruct, fields, len(fields)
		}
	}
	return p
}

// ownForm reports a type that decodes itself (through UnmarshalJSON or
// UnmarshalText), by value or by pointer.
func ownForm(t reflect.Type) bool {
	for _, u := range []reflect.Type{jsonUnmarshaler, textUnmarshaler} {
		if t.Implements(u) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(u)) {
			return true
		}
	}
	return false
}

// candidate is a field visible to encoding/json at some depth of
// embedding, before the rules on repeated names are applied.
type candidate struct {
	name   string
	tagged bool
	depth  int
	offset uintptr
	typ    reflect.Type
}

// structFields lists t's fields by JSON name, as encoding/json sees them:
// exported fields, those of embedded structs promoted, a name repeated at
// one depth dropped unless exactly one of them is tagged, the shallowest
// winning otherwise. It reports false for what it does not describe: an
// embedded pointer, a ",string" option, too many fields.
func structFields(t reflect.Type, building map[reflect.Type]*plan) (map[string]*field, bool) {
	var cands []candidate
	type level struct {
		typ    reflect.Type
		offset uintptr
		depth  int
	}
	queue := []level{{t, 0, 0}}
	visited := map[reflect.Type]bool{}
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		if visited[l.typ] {
			continue
		}
		visited[l.typ] = true
		for i := range l.typ.NumField() {
			sf := l.typ.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if sf.Anonymous {
				if sf.Type.Kind() == reflect.Pointer {
					return nil, false
				}
				if !sf.IsExported() && sf.Type.Kind() != reflect.Struct {
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if !validName(name) {
				name = ""
			}
			for _, o := range strings.Split(opts, ",") {
				if o == "string" {
					return nil, false
				}
			}
			if name == "" && sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				queue = append(queue, level{sf.Type, l.offset + sf.Offset, l.depth + 1})
				continue
			}
			c := candidate{name: name, tagged: name != "", depth: l.depth, offset: l.offset + sf.Offset, typ: sf.Type}
			if c.name == "" {
				c.name = sf.Name
			}
			cands = append(cands, c)
		}
	}
	byName := map[string][]candidate{}
	var order []string
	for _, c := range cands {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], c)
	}
	fields := map[string]*field{}
	for _, name := range order {
		c, ok := dominant(byName[name])
		if !ok {
			continue
		}
		fields[name] = &field{offset: c.offset, index: len(fields), plan: build(c.typ, building)}
	}
	return fields, len(fields) <= maxFields
}

// dominant picks the field that wins among those of one name, as
// encoding/json does: the shallowest, and among those the only tagged one
// or the only one.
func dominant(cs []candidate) (candidate, bool) {
	depth := cs[0].depth
	for _, c := range cs {
		depth = min(depth, c.depth)
	}
	var top []candidate
	for _, c := range cs {
		if c.depth == depth {
			top = append(top, c)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []candidate
	for _, c := range top {
		if c.tagged {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return candidate{}, false
}

// validName reports whether a tag's name is one encoding/json uses
// instead of the Go field's name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
