package transform

import (
	"hash/maphash"
	"math"
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

// ShareEqualValues returns a transform that makes the objects of a cache
// share one copy of each value they have in common: every string, slice,
// map and pointed-to struct of an object that is equal (reflect.DeepEqual)
// to one already cached is replaced by the cached one, bottom up. The Pods
// of one ReplicaSet, for example, then share their labels, containers'
// resources, probes, ports, env, tolerations and security context, and
// all Pods share strings such as image names. The object passes through
// reflection, so it works for any object type, typed or
// *unstructured.Unstructured; objects that are not pointers (such as the
// tombstones of deletes the informer missed) pass through unchanged. Set
// it with SetTransform before Run; the returned function may be shared by
// several informers (it takes a lock per object).
//
// Values are found by a content hash and checked by deep equality, so an
// object after the transform is reflect.DeepEqual to it before. A value is
// shared from its third sighting on: the first only records its hash in
// a fixed 128 KiB filter, the second makes it canonical, so values that
// occur once (UIDs, names, IPs) cost no table entry. The table refers to
// canonical values weakly (package weak): it does not keep them alive,
// and its entries for values no cached object uses any more are removed
// as it grows, so it holds no more than about twice the values cached
// objects share. Slices made canonical have
// their capacity cut to their length, so that an append to one copies
// rather than writes into the shared array.
//
// Trade-offs:
//   - Cached objects alias each other. Cached objects are read-only
//     under the informer contract; with this transform, a handler or
//     lister user that writes into one (even a field that seems private
//     to it, such as one container's env) changes many cached objects at
//     once. Copy (DeepCopy) before changing anything. The cache mutation
//     detector still works: it compares deep copies.
//   - CPU: every field of every object received is visited by
//     reflection and hashed, and the first copy of each shared map is
//     rebuilt, at ingest (list and watch events alike); BENCHMARKS.md
//     ("Round two") measures the cost.
//   - The transform writes into the object it is given, which must be
//     fresh from a decoder (as an informer's are) and made of Go memory:
//     it must not already be shared with cached objects, nor refer to
//     memory the Go runtime did not allocate.
//
// BENCHMARKS.md ("Round two") measures the memory saved.
func ShareEqualValues() Func {
	s := &sharer{}
	return s.transform
}

// sharer is the state of a ShareEqualValues transform.
type sharer struct {
	mu sync.Mutex
	t  shareTable // guarded by mu
}

// shareMaxDepth bounds the nesting the transform follows, so that a
// cyclic value cannot make it recurse forever; deeper values are kept as
// they are.
const shareMaxDepth = 64

// stringType keys every canonical string, whatever its named type.
var stringType = reflect.TypeFor[string]()

func (s *sharer) transform(obj any) (any, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return obj, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.walk(v.Elem(), 0)
	return obj, nil
}

// walk makes v's parts canonical and returns v's content hash, whether v
// holds a value never met before (novel: then no value containing it can
// be in the table), and whether v changed. A settable v is changed in
// place; otherwise its replacement is r (valid only if changed).
func (s *sharer) walk(v reflect.Value, depth int) (r reflect.Value, h uint64, novel, changed bool) {
	if depth > shareMaxDepth {
		return reflect.Value{}, hashNil, true, false
	}
	if !v.CanInterface() {
		// Reached through an unexported field: it cannot be set, so
		// it is only hashed.
		return reflect.Value{}, hashReadOnly(v, depth), false, false
	}
	switch v.Kind() {
	case reflect.String:
		return s.walkString(v)
	case reflect.Pointer:
		return s.walkPointer(v, depth)
	case reflect.Slice:
		return s.walkSlice(v, depth)
	case reflect.Map:
		return s.walkMap(v, depth)
	case reflect.Struct, reflect.Array:
		return s.walkFields(v, depth)
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Value{}, hashNil, false, false
		}
		e := v.Elem()
		er, eh, en, ec := s.walk(e, depth+1)
		h = mixHash(eh, typeHash(e.Type()))
		if ec {
			r, changed = apply(v, er)
		}
		return r, h, en, changed
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if v.IsNil() {
			return reflect.Value{}, hashNil, false, false
		}
		return reflect.Value{}, uint64(v.Pointer()), true, false
	}
	return reflect.Value{}, scalarHash(v), false, false
}

// apply replaces v by c: in place if v is settable, else by returning c.
func apply(v, c reflect.Value) (reflect.Value, bool) {
	if c.Type() != v.Type() {
		c = c.Convert(v.Type())
	}
	if v.CanSet() {
		v.Set(c)
		return reflect.Value{}, true
	}
	return c, true
}

func (s *sharer) walkString(v reflect.Value) (reflect.Value, uint64, bool, bool) {
	str := v.String()
	if str == "" {
		return reflect.Value{}, hashEmpty, false, false
	}
	h := maphash.String(shareSeed, str)
	if p, n, ok := s.t.get(stringType, h); ok {
		c := unsafe.String((*byte)(p), n)
		if c != str {
			return reflect.Value{}, h, true, false // a hash collision
		}
		if unsafe.StringData(c) == unsafe.StringData(str) {
			return reflect.Value{}, h, false, false
		}
		if v.CanSet() {
			v.SetString(c) // no boxing, the common case
			return reflect.Value{}, h, false, true
		}
		r, changed := apply(v, reflect.ValueOf(c))
		return r, h, false, changed
	}
	if !s.t.seenBefore(h) {
		return reflect.Value{}, h, true, false
	}
	// The canonical copy is a fresh one: str may be read-only data
	// (a literal), which weak pointers cannot refer to, or part of a
	// larger buffer.
	c := strings.Clone(str)
	s.t.put(stringType, h, unsafe.Pointer(unsafe.StringData(c)), len(c))
	r, changed := apply(v, reflect.ValueOf(c))
	return r, h, false, changed
}

func (s *sharer) walkPointer(v reflect.Value, depth int) (reflect.Value, uint64, bool, bool) {
	if v.IsNil() {
		return reflect.Value{}, hashNil, false, false
	}
	e := v.Elem() // addressable, so changed in place
	_, eh, novel, _ := s.walk(e, depth+1)
	h := mixHash(eh, hashNil)
	if e.Type().Size() == 0 {
		return reflect.Value{}, h, novel, false
	}
	c, novel := s.share(v, h, novel, v.UnsafePointer(), 0)
	return shareResult(v, h, c, novel)
}

// shareResult returns walk's results for v given share's.
func shareResult(v reflect.Value, h uint64, c reflect.Value, novel bool) (reflect.Value, uint64, bool, bool) {
	if !c.IsValid() {
		return reflect.Value{}, h, novel, false
	}
	r, changed := apply(v, c)
	return r, h, novel, changed
}

func (s *sharer) walkSlice(v reflect.Value, depth int) (reflect.Value, uint64, bool, bool) {
	if v.IsNil() {
		return reflect.Value{}, hashNil, false, false
	}
	n := v.Len()
	if n == 0 {
		return reflect.Value{}, hashEmpty, false, false
	}
	et := v.Type().Elem()
	h, novel := uint64(n), false
	if et.Kind() == reflect.Uint8 {
		h = mixHash(h, maphash.Bytes(shareSeed, v.Bytes()))
	} else {
		for i := range n {
			// Elements are addressable, so changed in place.
			_, eh, en, _ := s.walk(v.Index(i), depth+1)
			h = mixHash(h, eh)
			novel = novel || en
		}
	}
	if et.Size() == 0 {
		return reflect.Value{}, h, novel, false
	}
	c, novel := s.share(v, h, novel, v.UnsafePointer(), n)
	return shareResult(v, h, c, novel)
}

func (s *sharer) walkMap(v reflect.Value, depth int) (reflect.Value, uint64, bool, bool) {
	if v.IsNil() {
		return reflect.Value{}, hashNil, false, false
	}
	n := v.Len()
	if n == 0 {
		return reflect.Value{}, hashEmpty, false, false
	}
	var sum uint64
	novel, changed := false, false
	kv := make([]reflect.Value, 0, 2*n)
	for it := v.MapRange(); it.Next(); {
		k, e := it.Key(), it.Value()
		rk, hk, nk, ck := s.walk(k, depth+1)
		re, he, ne, ce := s.walk(e, depth+1)
		if ck {
			k = rk
		}
		if ce {
			e = re
		}
		kv = append(kv, k, e)
		sum += mixHash(hk, he) // entries in any order
		novel = novel || nk || ne
		changed = changed || ck || ce
	}
	h := mixHash(sum, uint64(n))
	m := v
	if changed {
		m = reflect.MakeMapWithSize(v.Type(), n)
		for i := 0; i < len(kv); i += 2 {
			m.SetMapIndex(kv[i], kv[i+1])
		}
	}
	c, novel := s.share(m, h, novel, m.UnsafePointer(), 0)
	if c.IsValid() {
		m = c
	}
	if m.UnsafePointer() == v.UnsafePointer() {
		return reflect.Value{}, h, novel, false
	}
	r, changed := apply(v, m)
	return r, h, novel, changed
}

func (s *sharer) walkFields(v reflect.Value, depth int) (reflect.Value, uint64, bool, bool) {
	copied := false
	if !v.CanAddr() {
		// A map value or interface content: work on a copy.
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v, copied = c, true
	}
	h := uint64(v.Kind())
	novel, changed := false, false
	n := v.Len
	field := v.Index
	if v.Kind() == reflect.Struct {
		n, field = v.NumField, v.Field
	}
	for i := range n() {
		_, fh, fn, fc := s.walk(field(i), depth+1)
		h = mixHash(h, fh)
		novel = novel || fn
		changed = changed || fc
	}
	if copied && changed {
		return v, h, novel, true
	}
	return reflect.Value{}, h, novel, changed && !copied
}

// share looks v (a pointer, slice or map whose parts are canonical, of
// hash h, starting at p, of length n) up in the table: if an equal value
// is there, it returns it as c; else v becomes canonical if it was met
// before (c is then v with its capacity cut, for a slice). A novel v is
// only recorded as met. It also returns whether v is novel.
func (s *sharer) share(v reflect.Value, h uint64, novel bool, p unsafe.Pointer, n int) (c reflect.Value, stillNovel bool) {
	if novel {
		s.t.seenBefore(h)
		return reflect.Value{}, true
	}
	typ := v.Type()
	if cp, cn, ok := s.t.get(typ, h); ok {
		if cp == p && cn == n {
			return reflect.Value{}, false
		}
		if cn != n {
			return reflect.Value{}, true
		}
		c := valueAt(typ, cp, cn)
		if !sameBits(typ, cp, p, n) && !reflect.DeepEqual(c.Interface(), v.Interface()) {
			return reflect.Value{}, true // a hash collision
		}
		return c, false
	}
	if !s.t.seenBefore(h) {
		return reflect.Value{}, true
	}
	s.t.put(typ, h, p, n)
	if typ.Kind() == reflect.Slice && v.Cap() > n {
		return v.Slice3(0, n, n), false
	}
	return reflect.Value{}, false
}

// sameBits reports whether the value a pointer of type typ points to at p
// and the one at q, or the n elements of slices of type typ at p and q,
// are the same bytes. Their parts being canonical already, equal values
// usually are, and then they are equal without a deep comparison (the same
// pointers, lengths and scalars). Different bytes prove nothing (padding,
// an interface's boxed copy), so share compares deeply then. Identical
// bytes also share a value holding a NaN or a func, which DeepEqual never
// finds equal: the object keeps the very same bits.
func sameBits(typ reflect.Type, p, q unsafe.Pointer, n int) bool {
	var size uintptr
	switch typ.Kind() {
	case reflect.Pointer:
		size = typ.Elem().Size()
	case reflect.Slice:
		size = typ.Elem().Size() * uintptr(n)
	default:
		return false
	}
	return unsafe.String((*byte)(p), size) == unsafe.String((*byte)(q), size)
}

// valueAt returns the pointer, slice (of length n) or map of type typ
// that starts at p.
func valueAt(typ reflect.Type, p unsafe.Pointer, n int) reflect.Value {
	switch typ.Kind() {
	case reflect.Pointer:
		return reflect.NewAt(typ.Elem(), p)
	case reflect.Slice:
		hdr := unsafe.Slice((*byte)(p), n) // the header of a slice at p of n elements, any type
		return reflect.NewAt(typ, unsafe.Pointer(&hdr)).Elem()
	default: // a map value is the pointer to its header
		return reflect.NewAt(typ, unsafe.Pointer(&p)).Elem()
	}
}

// hashReadOnly hashes a value that cannot be changed (reached through an
// unexported field): by content for scalars and strings, by address for
// what refers to other memory.
func hashReadOnly(v reflect.Value, depth int) uint64 {
	if depth > shareMaxDepth {
		return hashNil
	}
	switch v.Kind() {
	case reflect.String:
		return maphash.String(shareSeed, v.String())
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if v.IsNil() {
			return hashNil
		}
		return uint64(v.Pointer())
	case reflect.Slice:
		if v.IsNil() {
			return hashNil
		}
		return mixHash(uint64(v.Pointer()), uint64(v.Len()))
	case reflect.Interface:
		if v.IsNil() {
			return hashNil
		}
		return mixHash(hashReadOnly(v.Elem(), depth+1), typeHash(v.Elem().Type()))
	case reflect.Struct:
		h := uint64(reflect.Struct)
		for i := range v.NumField() {
			h = mixHash(h, hashReadOnly(v.Field(i), depth+1))
		}
		return h
	case reflect.Array:
		h := uint64(reflect.Array)
		for i := range v.Len() {
			h = mixHash(h, hashReadOnly(v.Index(i), depth+1))
		}
		return h
	}
	return scalarHash(v)
}

// scalarHash hashes a bool or number.
func scalarHash(v reflect.Value) uint64 {
	var b uint64
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			b = 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b = uint64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b = v.Uint()
	case reflect.Float32, reflect.Float64:
		b = math.Float64bits(v.Float())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		b = mixHash(math.Float64bits(real(c)), math.Float64bits(imag(c)))
	}
	return mixHash(uint64(v.Kind()), b)
}

// typeHash hashes a type by its identity.
func typeHash(t reflect.Type) uint64 {
	return uint64(reflect.ValueOf(t).Pointer())
}
