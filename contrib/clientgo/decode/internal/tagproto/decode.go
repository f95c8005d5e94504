package tagproto

import (
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
)

// Decoder decodes protobuf messages into typed objects. Its zero value
// allocates every string, as generated code does.
type Decoder struct {
	// Strings, when set, turns the bytes of every decoded string (keys and
	// values of maps included) into a string; a table that hands out one
	// string for equal bytes makes equal values share their memory.
	Strings func(b []byte) string

	// Values, when set, shares sub-messages, repeated fields and maps
	// whose encodings equal ones decoded before; see Values.
	Values *Values

	// aliasBytes makes []byte fields point into the input instead of
	// copying it; see UnmarshalEnvelope.
	aliasBytes bool
}

// UnmarshalEnvelope decodes the protobuf envelope of a Kubernetes object
// as runtime.Unknown's Unmarshal does, except that u.Raw points into b
// instead of being a copy of it: a list response is not held twice
// while its items are decoded. u.Raw is valid while b is.
func UnmarshalEnvelope(b []byte, u *runtime.Unknown) error {
	d := Decoder{aliasBytes: true}
	return d.Unmarshal(b, u)
}

// Unmarshal decodes b into obj, a pointer to a struct, as obj's generated
// Unmarshal method would: fields present in b are set (repeated fields and
// maps are appended to), fields absent are left as they are. With Values
// set, obj must be a zero value.
func (d *Decoder) Unmarshal(b []byte, obj any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("tagproto: %T is not a non-nil pointer", obj)
	}
	return d.message(planFor(v.Type().Elem()), v.UnsafePointer(), b, d.Values != nil)
}

func (d *Decoder) str(b []byte) string {
	if d.Strings != nil {
		return d.Strings(b)
	}
	return string(b)
}

// message decodes b into the value of p's type at ptr, sharing values
// through d.Values when share is set and b is canonical.
func (d *Decoder) message(p *plan, ptr unsafe.Pointer, b []byte, share bool) error {
	if p.own {
		u, ok := reflect.NewAt(p.typ, ptr).Interface().(unmarshaler)
		if !ok {
			return fmt.Errorf("tagproto: %s has no protobuf form", p.typ)
		}
		return u.Unmarshal(b)
	}
	share = share && canonical(p, b)
	for i := 0; i < len(b); {
		start := i
		tag, j, err := varint(b, i)
		if err != nil {
			return err
		}
		i = j
		num, wt := int32(tag>>3), int(tag&7)
		if wt == 4 {
			return fmt.Errorf("proto: %s: wiretype end group for non-group", p.name)
		}
		if num <= 0 {
			return fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", p.name, num, tag)
		}
		var f *field
		if int(num) < len(p.fields) {
			f = p.fields[num]
		}
		if f == nil {
			n, err := skip(b[start:])
			if err != nil {
				return err
			}
			if n < 0 || start+n < 0 {
				return errInvalidLength
			}
			if start+n > len(b) {
				return io.ErrUnexpectedEOF
			}
			i = start + n
			continue
		}
		fp := unsafe.Add(ptr, f.offset)
		if sharedRun(f) && wt == 2 && *(*unsafe.Pointer)(fp) == nil {
			end, n := runEnd(b, start, tag)
			if end >= 0 && share && end-start >= minShared && end-start <= maxShared {
				if i, err = d.run(f, fp, b, start, end, n); err != nil {
					return err
				}
				continue
			}
			if end >= 0 {
				presize(f, fp, n)
			}
		}
		if i, err = d.field(f, fp, b, i, wt, share); err != nil {
			return err
		}
	}
	return nil
}

// presize makes the empty slice or map at fp with room for the n values
// of the run about to be decoded into it, so that a slice is not grown
// (and left with spare capacity) one value at a time.
func presize(f *field, fp unsafe.Pointer, n int) {
	if n < 2 {
		return
	}
	v := reflect.NewAt(f.typ, fp).Elem()
	if f.typ.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(f.typ, 0, n))
		return
	}
	v.Set(reflect.MakeMapWithSize(f.typ, n))
}

// run decodes the run of f's fields b[start:end], n of them, into the
// empty slice or map at fp, or takes the value an equal run was decoded to
// before.
func (d *Decoder) run(f *field, fp unsafe.Pointer, b []byte, start, end, n int) (int, error) {
	enc := b[start:end]
	dst := reflect.NewAt(f.typ, fp).Elem()
	h := d.Values.hash(f, enc)
	v, ok, keep := d.Values.get(f, enc, h)
	if ok {
		dst.Set(v)
		return end, nil
	}
	presize(f, fp, n)
	for i := start; i < end; {
		tag, j, err := varint(b, i)
		if err != nil {
			return i, err
		}
		if i, err = d.field(f, fp, b, j, int(tag&7), true); err != nil {
			return i, err
		}
	}
	if !keep {
		return end, nil
	}
	if dst.Kind() == reflect.Slice {
		dst.Set(dst.Slice3(0, dst.Len(), dst.Len()))
	}
	cell := reflect.New(f.typ).Elem()
	cell.Set(dst)
	d.Values.put(f, enc, h, cell)
	return end, nil
}

// sub decodes the sub-message v into the value at fp (p's type), or, with
// share, copies the value an equal encoding was decoded to before.
func (d *Decoder) sub(f *field, fp unsafe.Pointer, v []byte, share bool) error {
	if !share || !sharedMessage(f) || len(v) < minShared || len(v) > maxShared {
		return d.message(f.elem, fp, v, share)
	}
	dst := reflect.NewAt(f.elem.typ, fp).Elem()
	h := d.Values.hash(f, v)
	c, ok, keep := d.Values.get(f, v, h)
	if ok {
		dst.Set(c.Elem())
		return nil
	}
	if err := d.message(f.elem, fp, v, true); err != nil || !keep {
		return err
	}
	c = reflect.New(f.elem.typ)
	c.Elem().Set(dst)
	d.Values.put(f, v, h, c)
	return nil
}

// subPointer sets the pointer at fp to the sub-message v: a new value,
// or, with share, the one an equal encoding was decoded to before. As in
// generated code, a pointer already set is decoded into.
func (d *Decoder) subPointer(f *field, fp unsafe.Pointer, v []byte, share bool) error {
	pp := (*unsafe.Pointer)(fp)
	if *pp != nil || !share || !sharedMessage(f) || len(v) < minShared || len(v) > maxShared {
		if *pp == nil {
			*pp = reflect.New(f.elem.typ).UnsafePointer()
		}
		return d.message(f.elem, *pp, v, share)
	}
	h := d.Values.hash(f, v)
	c, ok, keep := d.Values.get(f, v, h)
	if ok {
		*pp = c.UnsafePointer()
		return nil
	}
	c = reflect.New(f.elem.typ)
	if err := d.message(f.elem, c.UnsafePointer(), v, true); err != nil {
		return err
	}
	*pp = c.UnsafePointer()
	if keep {
		d.Values.put(f, v, h, c)
	}
	return nil
}

// field decodes the value of f at b[i:], whose wire type is wt, into the
// field at fp, and returns where the next field starts.
func (d *Decoder) field(f *field, fp unsafe.Pointer, b []byte, i, wt int, share bool) (int, error) {
	switch f.kind {
	case kBool, kPtrBool, kInt32, kPtrInt32, kInt64, kPtrInt64:
		if wt != 0 {
			return i, wrongWire(f, wt)
		}
		x, i, err := varint(b, i)
		if err != nil {
			return i, err
		}
		setScalar(f.kind, fp, x)
		return i, nil
	case kBools, kInt32s, kInt64s:
		return d.repeatedScalar(f, fp, b, i, wt)
	}
	if wt != 2 {
		return i, wrongWire(f, wt)
	}
	start, end, err := span(b, i)
	if err != nil {
		return i, err
	}
	v := b[start:end]
	switch f.kind {
	case kString:
		*(*string)(fp) = d.str(v)
	case kPtrString:
		s := new(string)
		*s = d.str(v)
		*(**string)(fp) = s
	case kStrings:
		ss := (*[]string)(fp)
		*ss = append(*ss, d.str(v))
	case kBytes:
		bs := (*[]byte)(fp)
		if d.aliasBytes {
			*bs = v[:len(v):len(v)]
			break
		}
		*bs = append((*bs)[:0], v...)
		if *bs == nil {
			*bs = []byte{}
		}
	case kMessage:
		err = d.sub(f, fp, v, share)
	case kPtrMessage:
		err = d.subPointer(f, fp, v, share)
	case kMessages:
		err = d.message(f.elem, grow(f.typ, fp), v, share)
	case kSliceMessage:
		if s := reflect.NewAt(f.typ, fp).Elem(); s.IsNil() {
			s.Set(reflect.MakeSlice(f.typ, 0, 0))
		}
		err = d.message(f.elem, fp, v, false)
	case kMapStrings, kMapBytes, kMapMessages:
		err = d.mapEntry(f, fp, b, start, end, share)
	}
	return end, err
}

func wrongWire(f *field, wt int) error {
	return fmt.Errorf("proto: wrong wireType = %d for field %s", wt, f.name)
}

// setScalar stores varint x into the scalar field at fp, allocating it
// for pointer kinds, with generated code's conversions.
func setScalar(k kind, fp unsafe.Pointer, x uint64) {
	switch k {
	case kBool:
		*(*bool)(fp) = x != 0
	case kPtrBool:
		v := x != 0
		*(**bool)(fp) = &v
	case kInt32:
		*(*int32)(fp) = int32(x)
	case kPtrInt32:
		v := int32(x)
		*(**int32)(fp) = &v
	case kInt64:
		*(*int64)(fp) = int64(x)
	case kPtrInt64:
		v := int64(x)
		*(**int64)(fp) = &v
	}
}

// repeatedScalar appends one varint (wire type 0) or a packed run of them
// (wire type 2) to a []bool, []int32 or []int64. As in generated code, the
// last varint of a packed run may reach past the run's end, up to the end
// of the message.
func (d *Decoder) repeatedScalar(f *field, fp unsafe.Pointer, b []byte, i, wt int) (int, error) {
	add := func(x uint64) {
		switch f.kind {
		case kBools:
			s := (*[]bool)(fp)
			*s = append(*s, x != 0)
		case kInt32s:
			s := (*[]int32)(fp)
			*s = append(*s, int32(x))
		case kInt64s:
			s := (*[]int64)(fp)
			*s = append(*s, int64(x))
		}
	}
	switch wt {
	case 0:
		x, i, err := varint(b, i)
		if err == nil {
			add(x)
		}
		return i, err
	case 2:
		start, end, err := span(b, i)
		if err != nil {
			return i, err
		}
		for i = start; i < end; {
			var x uint64
			if x, i, err = varint(b, i); err != nil {
				return i, err
			}
			add(x)
		}
		return i, nil
	}
	return i, wrongWire(f, wt)
}

// grow appends a zero element to the slice of structs at fp (of type st)
// and returns the element's address.
func grow(st reflect.Type, fp unsafe.Pointer) unsafe.Pointer {
	s := reflect.NewAt(st, fp).Elem()
	n := s.Len()
	if n == s.Cap() {
		s.Grow(1)
	}
	s.SetLen(n + 1)
	e := s.Index(n)
	e.SetZero()
	return e.Addr().UnsafePointer()
}
