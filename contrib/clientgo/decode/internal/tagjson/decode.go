package tagjson

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unsafe"

	kjson "sigs.k8s.io/json"
)

// Decoder decodes JSON into typed objects. Its zero value allocates every
// string, as the reference decoder does.
type Decoder struct {
	// Strings, when set, turns the bytes of every decoded string (map keys
	// included) into a string; a table that hands out one string for equal
	// bytes makes equal values share their memory.
	Strings func(b []byte) string
}

// Unmarshal decodes the JSON text b into obj, a pointer to a zero value,
// as sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts would. On any
// error obj is left in an unspecified state: decode b again, into a new
// zero value, with the reference decoder, whose result and error stand.
func (d *Decoder) Unmarshal(b []byte, obj any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("tagjson: %T is not a non-nil pointer", obj)
	}
	s := scanner{b: b}
	if err := d.value(&s, planFor(v.Type().Elem()), v.UnsafePointer(), 0); err != nil {
		return err
	}
	if s.space(); s.i != len(b) {
		return errSyntax
	}
	return nil
}

func (d *Decoder) str(b []byte) string {
	if d.Strings != nil {
		return d.Strings(b)
	}
	return string(b)
}

// value decodes the value at s.i into the value of p's type at ptr.
func (d *Decoder) value(s *scanner, p *plan, ptr unsafe.Pointer, depth int) error {
	if depth > maxDepth {
		return errUnsupported
	}
	c := s.space()
	if p.kind == kDelegate {
		return d.delegate(s, p, ptr, depth)
	}
	if c == 'n' && p.kind != kAny {
		if err := s.literal("null"); err != nil {
			return err
		}
		switch p.kind {
		case kPointer:
			*(*unsafe.Pointer)(ptr) = nil
		case kSlice, kMap:
			reflect.NewAt(p.typ, ptr).Elem().SetZero()
		}
		return nil
	}
	switch p.kind {
	case kString:
		if c != '"' {
			return errUnsupported
		}
		raw, plain, err := s.str()
		if err != nil {
			return err
		}
		if !plain {
			return d.escaped(s, raw, ptr)
		}
		*(*string)(ptr) = d.str(raw)
	case kBool:
		switch c {
		case 't':
			*(*bool)(ptr) = true
			return s.literal("true")
		case 'f':
			*(*bool)(ptr) = false
			return s.literal("false")
		}
		return errUnsupported
	case kInt, kUint, kFloat:
		return d.number(s, p, ptr, c)
	case kStruct:
		return d.object(s, p, ptr, depth)
	case kPointer:
		pp := (*unsafe.Pointer)(ptr)
		if *pp == nil {
			*pp = reflect.New(p.elem.typ).UnsafePointer()
		}
		return d.value(s, p.elem, *pp, depth+1)
	case kSlice:
		return d.array(s, p, ptr, depth)
	case kMap:
		if p.typ == anyMap {
			if c != '{' {
				return errUnsupported
			}
			m, err := d.anyObject(s, depth)
			*(*map[string]any)(ptr) = m
			return err
		}
		return d.mapping(s, p, ptr, depth)
	case kAny:
		v, err := d.anyValue(s, depth)
		*(*any)(ptr) = v
		return err
	}
	return nil
}

// escaped sets the string at ptr to the string str read last, whose
// contents raw hold escapes or bytes that are not UTF-8: the reference
// decoder unquotes it.
func (d *Decoder) escaped(s *scanner, raw []byte, ptr unsafe.Pointer) error {
	var v string
	if err := kjson.UnmarshalCaseSensitivePreserveInts(s.b[s.quote:s.quote+len(raw)+2], &v); err != nil {
		return err
	}
	*(*string)(ptr) = d.str(unsafe.Slice(unsafe.StringData(v), len(v)))
	return nil
}

// delegate hands the value at s.i to the reference decoder.
func (d *Decoder) delegate(s *scanner, p *plan, ptr unsafe.Pointer, depth int) error {
	start := s.i
	if err := s.skip(depth); err != nil {
		return err
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(s.b[start:s.i], reflect.NewAt(p.typ, ptr).Interface())
}

// number decodes the number at s.i into the integer or float at ptr,
// failing where the reference decoder fails (a fraction for an integer,
// a value out of range).
func (d *Decoder) number(s *scanner, p *plan, ptr unsafe.Pointer, c byte) error {
	if c != '-' && (c < '0' || c > '9') {
		return errUnsupported
	}
	text, integer, err := s.number()
	if err != nil {
		return err
	}
	t := unsafe.String(unsafe.SliceData(text), len(text))
	switch p.kind {
	case kInt:
		if !integer {
			return errUnsupported
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || (p.bits < 64 && (n < -1<<(p.bits-1) || n >= 1<<(p.bits-1))) {
			return errUnsupported
		}
		setInt(ptr, p.bits, n)
	case kUint:
		if !integer {
			return errUnsupported
		}
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil || (p.bits < 64 && n >= 1<<p.bits) {
			return errUnsupported
		}
		setUint(ptr, p.bits, n)
	case kFloat:
		f, err := strconv.ParseFloat(t, p.bits)
		if err != nil {
			return errUnsupported
		}
		if p.bits == 32 {
			if math.Abs(f) > math.MaxFloat32 {
				return errUnsupported
			}
			*(*float32)(ptr) = float32(f)
		} else {
			*(*float64)(ptr) = f
		}
	}
	return nil
}

func setInt(ptr unsafe.Pointer, bits int, n int64) {
	switch bits {
	case 8:
		*(*int8)(ptr) = int8(n)
	case 16:
		*(*int16)(ptr) = int16(n)
	case 32:
		*(*int32)(ptr) = int32(n)
	default:
		*(*int64)(ptr) = n
	}
}

func setUint(ptr unsafe.Pointer, bits int, n uint64) {
	switch bits {
	case 8:
		*(*uint8)(ptr) = uint8(n)
	case 16:
		*(*uint16)(ptr) = uint16(n)
	case 32:
		*(*uint32)(ptr) = uint32(n)
	default:
		*(*uint64)(ptr) = n
	}
}

// object decodes the object at s.i into the struct at ptr. A key met
// twice stops it: the reference decoder would decode the second value
// into the first.
func (d *Decoder) object(s *scanner, p *plan, ptr unsafe.Pointer, depth int) error {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return errUnsupported
	}
	var seen [maxFields / 64]uint64
	for more := !s.enter('}'); more; {
		key, plain, err := s.key()
		if err != nil {
			return err
		}
		if !plain {
			return errUnsupported
		}
		if f := p.fields[string(key)]; f != nil {
			if seen[f.index/64]&(1<<(f.index%64)) != 0 {
				return errUnsupported
			}
			seen[f.index/64] |= 1 << (f.index % 64)
			if err := d.value(s, f.plan, unsafe.Add(ptr, f.offset), depth+1); err != nil {
				return err
			}
		} else if err := s.skip(depth + 1); err != nil {
			return err
		}
		if more, err = s.next('}'); err != nil {
			return err
		}
	}
	return nil
}

// array decodes the array at s.i into the nil slice at ptr, made at its
// final size.
func (d *Decoder) array(s *scanner, p *plan, ptr unsafe.Pointer, depth int) error {
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return errUnsupported
	}
	v := reflect.NewAt(p.typ, ptr).Elem()
	v.Set(reflect.MakeSlice(p.typ, 0, s.count()))
	for more := !s.enter(']'); more; {
		n := v.Len()
		if n == v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		if err := d.value(s, p.elem, v.Index(n).Addr().UnsafePointer(), depth+1); err != nil {
			return err
		}
		var err error
		if more, err = s.next(']'); err != nil {
			return err
		}
	}
	return nil
}

// mapping decodes the object at s.i into the nil map at ptr, made at its
// final size. A key met twice keeps its last value, as in the reference
// decoder.
func (d *Decoder) mapping(s *scanner, p *plan, ptr unsafe.Pointer, depth int) error {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return errUnsupported
	}
	m := reflect.NewAt(p.typ, ptr).Elem()
	m.Set(reflect.MakeMapWithSize(p.typ, s.count()))
	var elem reflect.Value
	for more := !s.enter('}'); more; {
		key, err := d.key(s)
		if err != nil {
			return err
		}
		if p.plain && s.space() == '"' {
			var v string
			if err := d.value(s, p.elem, unsafe.Pointer(&v), depth+1); err != nil {
				return err
			}
			(*(*map[string]string)(ptr))[key] = v
		} else {
			if !elem.IsValid() {
				elem = reflect.New(p.elem.typ).Elem()
			} else {
				elem.SetZero()
			}
			if err := d.value(s, p.elem, elem.Addr().UnsafePointer(), depth+1); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key).Convert(p.typ.Key()), elem)
		}
		if more, err = s.next('}'); err != nil {
			return err
		}
	}
	return nil
}

// key consumes a map's key and the colon after it, returning the key's
// value.
func (d *Decoder) key(s *scanner) (string, error) {
	raw, plain, err := s.key()
	if err != nil {
		return "", err
	}
	if plain {
		return d.str(raw), nil
	}
	var k string
	err = d.escaped(s, raw, unsafe.Pointer(&k))
	return k, err
}
