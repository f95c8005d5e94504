package tagproto

import (
	"io"
	"reflect"
	"unsafe"
)

// mapEntry decodes one map entry, b[start:end], into the map at fp,
// making the map if it is nil. As in generated code, the entry's key
// (field 1) and value (field 2) are read whatever their wire type says,
// may reach past the entry's end up to the end of b, and a missing key or
// value is the zero value; any other field is skipped.
func (d *Decoder) mapEntry(f *field, fp unsafe.Pointer, b []byte, start, end int, share bool) error {
	var key string
	var val reflect.Value // kMapMessages: the value being built
	var str string        // kMapStrings
	bs := []byte{}        // kMapBytes
	if f.kind == kMapMessages {
		val = reflect.New(f.typ.Elem()).Elem()
		fresh(val)
	}
	m := reflect.NewAt(f.typ, fp).Elem()
	if m.IsNil() {
		m.Set(reflect.MakeMap(f.typ))
	}
	for i := start; i < end; {
		entry := i
		tag, j, err := varint(b, i)
		if err != nil {
			return err
		}
		i = j
		switch int32(tag >> 3) {
		case 1:
			s, e, err := span(b, i)
			if err != nil {
				return err
			}
			key, i = d.str(b[s:e]), e
		case 2:
			s, e, err := span(b, i)
			if err != nil {
				return err
			}
			switch f.kind {
			case kMapStrings:
				str = d.str(b[s:e])
			case kMapBytes:
				bs = make([]byte, e-s)
				copy(bs, b[s:e])
			case kMapMessages:
				fresh(val)
				if err := d.message(f.elem, val.Addr().UnsafePointer(), b[s:e], share); err != nil {
					return err
				}
			}
			i = e
		default:
			n, err := skip(b[entry:])
			if err != nil {
				return err
			}
			if n < 0 || entry+n < 0 {
				return errInvalidLength
			}
			if entry+n > end {
				return io.ErrUnexpectedEOF
			}
			i = entry + n
		}
	}
	switch f.kind {
	case kMapStrings:
		if f.typ == mapStringsType {
			(*(*map[string]string)(fp))[key] = str
			return nil
		}
		m.SetMapIndex(reflect.ValueOf(key).Convert(f.typ.Key()), reflect.ValueOf(str).Convert(f.typ.Elem()))
	case kMapBytes:
		m.SetMapIndex(reflect.ValueOf(key).Convert(f.typ.Key()), reflect.ValueOf(bs).Convert(f.typ.Elem()))
	case kMapMessages:
		m.SetMapIndex(reflect.ValueOf(key).Convert(f.typ.Key()), val)
	}
	return nil
}

// fresh sets v to what generated code starts a map value from, the
// composite literal T{}: zero for a struct, empty but not nil for a slice
// type (authentication's ExtraValue).
func fresh(v reflect.Value) {
	if v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	v.SetZero()
}

var mapStringsType = reflect.TypeFor[map[string]string]()
