package tagproto

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/plancache"
)

// kind is how one field is stored and which wire type it takes.
type kind uint8

const (
	kString       kind = iota // string (or a named string type)
	kPtrString                // *string
	kStrings                  // []string
	kBytes                    // []byte
	kBool                     // bool
	kPtrBool                  // *bool
	kBools                    // []bool, packed or not
	kInt32                    // int32
	kPtrInt32                 // *int32
	kInt32s                   // []int32, packed or not
	kInt64                    // int64
	kPtrInt64                 // *int64
	kInt64s                   // []int64, packed or not
	kMessage                  // a struct value
	kPtrMessage               // a pointer to a struct
	kMessages                 // a slice of struct values
	kMapStrings               // map[string]string
	kMapBytes                 // map[string][]byte
	kMapMessages              // map[string]V, V a message (struct, or a type with its own Unmarshal)
	kSliceMessage             // a slice type with its own Unmarshal (metav1.Verbs), made empty, not nil, before it is decoded
)

// scalarKinds gives, for each scalar Go kind, the kinds of a field of it,
// of a pointer to it and of a slice of it.
var scalarKinds = map[reflect.Kind][3]kind{
	reflect.String: {kString, kPtrString, kStrings},
	reflect.Bool:   {kBool, kPtrBool, kBools},
	reflect.Int32:  {kInt32, kPtrInt32, kInt32s},
	reflect.Int64:  {kInt64, kPtrInt64, kInt64s},
}

// field is the plan for one tagged field.
type field struct {
	name   string
	offset uintptr
	kind   kind
	typ    reflect.Type // the field's type
	elem   *plan        // for messages: the element's plan
}

// plan says how to decode one Go type: either field by field, or, when
// own is set, through the type's own Unmarshal method.
type plan struct {
	typ    reflect.Type
	name   string // the type's name, as generated errors give it
	own    bool
	fields []*field // indexed by field number; nil where none
}

// unmarshaler is what a type with its own wire form implements.
type unmarshaler interface{ Unmarshal([]byte) error }

var unmarshalerType = reflect.TypeFor[unmarshaler]()

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
	p := &plan{typ: t, name: t.Name()}
	building[t] = p
	if t.Kind() != reflect.Struct || handWritten(t) {
		p.own = true
		return p
	}
	var fields []*field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("protobuf")
		if tag == "" || tag == "-" {
			continue
		}
		num, err := strconv.Atoi(strings.Split(tag, ",")[1])
		if err != nil || num <= 0 || num > 1<<12 {
			p.own = true
			return p
		}
		f, ok := fieldPlan(sf, building)
		if !ok {
			p.own = true
			return p
		}
		for len(fields) <= num {
			fields = append(fields, nil)
		}
		fields[num] = f
	}
	p.fields = fields
	return p
}

// handWritten reports a struct whose wire form is not its tagged fields:
// one with an Unmarshal method but no tagged field (metav1.Time,
// resource.Quantity).
func handWritten(t reflect.Type) bool {
	if !reflect.PointerTo(t).Implements(unmarshalerType) {
		return true
	}
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("protobuf"); tag != "" && tag != "-" {
			return false
		}
	}
	return t.NumField() > 0
}

// fieldPlan describes one tagged field, or reports that it cannot.
func fieldPlan(sf reflect.StructField, building map[reflect.Type]*plan) (*field, bool) {
	f := &field{name: sf.Name, offset: sf.Offset, typ: sf.Type}
	t := sf.Type
	message := func(t reflect.Type) *plan {
		if t.Kind() == reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
			return build(t, building)
		}
		return nil
	}
	if k, ok := scalarKinds[t.Kind()]; ok {
		f.kind = k[0]
		return f, true
	}
	switch t.Kind() {
	case reflect.Struct:
		f.kind, f.elem = kMessage, message(t)
	case reflect.Pointer:
		e := t.Elem()
		k, scalar := scalarKinds[e.Kind()]
		switch {
		case scalar:
			f.kind = k[1]
		case e.Kind() == reflect.Struct:
			f.kind, f.elem = kPtrMessage, message(e)
		default:
			return nil, false
		}
	case reflect.Slice:
		e := t.Elem()
		k, scalar := scalarKinds[e.Kind()]
		switch {
		case reflect.PointerTo(t).Implements(unmarshalerType):
			f.kind, f.elem = kSliceMessage, message(t)
		case scalar:
			f.kind = k[2]
		case e.Kind() == reflect.Uint8:
			f.kind = kBytes
		case e.Kind() == reflect.Struct:
			f.kind, f.elem = kMessages, message(e)
		default:
			return nil, false
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, false
		}
		v := t.Elem()
		switch {
		case v.Kind() == reflect.String:
			f.kind = kMapStrings
		case v.Kind() == reflect.Slice && v.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(v).Implements(unmarshalerType):
			f.kind = kMapBytes
		default:
			f.elem = message(v)
			if f.elem == nil {
				return nil, false
			}
			f.kind = kMapMessages
		}
	default:
		return nil, false
	}
	if (f.kind == kMessage || f.kind == kPtrMessage || f.kind == kMessages || f.kind == kSliceMessage) && f.elem == nil {
		return nil, false
	}
	return f, true
}

// String describes the plan, for tests and debugging.
func (p *plan) String() string {
	if p.own {
		return fmt.Sprintf("%s: own Unmarshal", p.typ)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", p.typ)
	for n, f := range p.fields {
		if f != nil {
			fmt.Fprintf(&b, " %d=%s/%d", n, f.name, f.kind)
		}
	}
	return b.String()
}
