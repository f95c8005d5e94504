package decode

import (
	"reflect"
	"strconv"
	"strings"
)

// msgPlan is what to drop in one protobuf message type: the fields to
// hide from the decoder and the fields to descend into.
type msgPlan struct {
	fields []fieldPlan
	// maps are the message's map fields. The generated decoder reads a
	// map entry's key and value up to the end of the whole message, not
	// of the entry, so a malformed entry can read the bytes of a hidden
	// field: the message is then left as it came.
	maps []uint64
}

// isMap reports whether field num is one of the message's map fields.
func (p *msgPlan) isMap(num uint64) bool {
	for _, m := range p.maps {
		if m == num {
			return true
		}
	}
	return false
}

// mapFields returns the protobuf numbers of struct t's map fields.
func mapFields(t reflect.Type) []uint64 {
	var out []uint64
	for i := range t.NumField() {
		f := t.Field(i)
		if n, ok := protoNumber(f); ok && f.Type.Kind() == reflect.Map {
			out = append(out, n)
		}
	}
	return out
}

// fieldPlan is the plan for one field number of a message.
type fieldPlan struct {
	num uint64
	// drop hides every occurrence of the field: its tag is rewritten to
	// the field number to, which the message's type does not have, so
	// the generated decoder skips the bytes without allocating.
	drop bool
	to   uint64 // 0 when every number of the tag's length is taken
	// wrapTo is a free field number with a two-byte tag: when to is 0,
	// the whole field (of at least three bytes) is rewritten as an
	// unknown length-delimited field of wrapTo holding its old bytes.
	wrapTo uint64
	// keys, for a map field, are the entries to hide (the entry's tag is
	// rewritten to to).
	keys []string
	// sub is the plan of the field's own message.
	sub *msgPlan
}

// find returns the plan of field num, or nil.
func (p *msgPlan) find(num uint64) *fieldPlan {
	if p == nil {
		return nil
	}
	for i := range p.fields {
		if p.fields[i].num == num {
			return &p.fields[i]
		}
	}
	return nil
}

// field returns the plan of field num, adding it.
func (p *msgPlan) field(num uint64) *fieldPlan {
	if f := p.find(num); f != nil {
		return f
	}
	p.fields = append(p.fields, fieldPlan{num: num})
	return &p.fields[len(p.fields)-1]
}

// protoField is a struct field's protobuf number and Go type.
type protoField struct {
	num uint64
	typ reflect.Type
}

// protoFieldByJSON finds the field of struct t whose JSON name is name and
// returns its protobuf number (from the protobuf struct tag generated for
// every Kubernetes API type).
func protoFieldByJSON(t reflect.Type, name string) (protoField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		jname, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		num, ok := protoNumber(f)
		if jname == "" && f.Anonymous && !ok {
			// An inlined struct without a number of its own (TypeMeta):
			// it is not encoded in protobuf.
			continue
		}
		if jname == name && ok && f.IsExported() {
			return protoField{num: num, typ: f.Type}, true
		}
	}
	return protoField{}, false
}

// protoNumber is the protobuf field number of a struct field.
func protoNumber(f reflect.StructField) (uint64, bool) {
	parts := strings.Split(f.Tag.Get("protobuf"), ",")
	if len(parts) < 2 {
		return 0, false
	}
	n, err := strconv.ParseUint(parts[1], 10, 29)
	return n, err == nil && n > 0
}

// usedNumbers returns the protobuf field numbers struct t decodes.
func usedNumbers(t reflect.Type) map[uint64]bool {
	used := map[uint64]bool{}
	for i := range t.NumField() {
		if n, ok := protoNumber(t.Field(i)); ok {
			used[n] = true
		}
	}
	return used
}

// freeNumber returns a field number that struct t does not decode and
// whose tag has the same varint length as num's, so that a tag can be
// rewritten in place. ok is false when every such number is taken.
func freeNumber(t reflect.Type, num uint64) (uint64, bool) {
	used := usedNumbers(t)
	l := varintLen(num << 3)
	lo, hi := uint64(1), uint64(15)
	for k := 2; k <= l; k++ {
		lo, hi = hi+1, hi<<7|0x7f
	}
	if hi > 1<<29-1 {
		hi = 1<<29 - 1
	}
	for m := hi; m >= lo; m-- {
		if !used[m] {
			return m, true
		}
	}
	return 0, false
}

// structOf is t without pointers, when that is a struct.
func structOf(t reflect.Type) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, t.Kind() == reflect.Struct
}

// addPath adds path (JSON names from the root of struct type t) to plan
// p. A path that does not resolve in t (a field t lacks, a step through a
// slice, a map step before the last, a field whose tag cannot be
// rewritten in place) is left out: its field is then decoded as usual.
func addPath(p *msgPlan, t reflect.Type, path []string) bool {
	if len(path) == 0 {
		return false
	}
	f, ok := protoFieldByJSON(t, path[0])
	if !ok {
		return false
	}
	if p.maps == nil {
		p.maps = mapFields(t)
	}
	isMap := f.typ.Kind() == reflect.Map && f.typ.Key().Kind() == reflect.String && len(path) == 2
	if len(path) == 1 || isMap {
		to, _ := freeNumber(t, f.num)
		wrapTo, ok := freeNumber(t, 16)
		if !ok {
			return false
		}
		fp := p.field(f.num)
		fp.to, fp.wrapTo = to, wrapTo
		if isMap {
			fp.keys = append(fp.keys, path[1])
		} else {
			fp.drop = true
		}
		return true
	}
	st, ok := structOf(f.typ)
	if !ok {
		return false
	}
	sub := &msgPlan{}
	if fp := p.find(f.num); fp != nil && fp.sub != nil {
		sub = fp.sub
	}
	if !addPath(sub, st, path[1:]) {
		return false
	}
	p.field(f.num).sub = sub
	return true
}

// planFor compiles paths for struct type t; nil when none resolves.
func planFor(t reflect.Type, paths [][]string) *msgPlan {
	st, ok := structOf(t)
	if !ok {
		return nil
	}
	p := &msgPlan{}
	any := false
	for _, path := range paths {
		if addPath(p, st, path) {
			any = true
		}
	}
	if !any {
		return nil
	}
	return p
}
