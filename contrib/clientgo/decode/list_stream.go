package decode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// listTransport decodes the protobuf list responses of the requests whose
// context holds a listTarget as they stream, item by item from a reused
// buffer, so that a list is never held as bytes and as objects at once.
// The body client-go then reads is the envelope of an empty list of the
// same kind; the list itself goes to the target. Every other response
// passes through unchanged.
type listTransport struct {
	next   http.RoundTripper
	scheme *runtime.Scheme
	tables *tables
}

// RoundTrip sends req through the wrapped transport and, for a list the
// caller streams, replaces the body.
func (t *listTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	target := listTargetFrom(req.Context())
	if err != nil || target == nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		resp.Body == nil || resp.Header.Get("Content-Encoding") != "" {
		return resp, err
	}
	if q := req.URL.Query().Get("watch"); q == "true" || q == "1" {
		return resp, nil
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != protoType && mt != jsonType || params["stream"] != "" {
		return resp, nil
	}
	resp.Body = &listBody{orig: resp.Body, t: t, target: target, json: mt == jsonType}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// WrappedRoundTripper returns the transport it wraps.
func (t *listTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

// listBody is a list response decoded at its first Read. It then reads as
// the envelope of an empty list (the list went to the target), as
// nothing (the target falls back to listing again without streaming), or
// fails with the original body's read error, which client-go reports as
// it would have.
type listBody struct {
	orig   io.ReadCloser
	t      *listTransport
	target *listTarget
	json   bool // a JSON body, else protobuf
	out    []byte
	err    error
	done   bool
}

func (b *listBody) Read(p []byte) (int, error) {
	if !b.done {
		b.done = true
		b.out, b.err = b.decode()
	}
	if len(b.out) > 0 {
		n := copy(p, b.out)
		b.out = b.out[n:]
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	return 0, io.EOF
}

func (b *listBody) Close() error { return b.orig.Close() }

// errFallBack ends a streamed decode that client-go's decoder must judge:
// input it does not follow, or that does not decode.
var errFallBack = errors.New("decode: list not streamed")

// decode decodes the whole original body into b.target, returning the
// body client-go is to read, or the original body's read error.
func (b *listBody) decode() ([]byte, error) {
	r := readerPool.Get().(*bufio.Reader)
	r.Reset(b.orig)
	defer func() {
		r.Reset(nil)
		readerPool.Put(r)
	}()
	s := &listStream{r: r, t: b.t, into: b.target.into}
	var obj runtime.Object
	var gvk schema.GroupVersionKind
	var err error
	if b.json {
		obj, err = s.jsonList()
	} else {
		obj, gvk, err = s.envelope()
	}
	switch {
	case err == nil:
		b.target.obj, b.target.fallback = obj, false
		if b.json {
			// Typed by the list asked for, as client-go types a JSON
			// object without kind.
			return []byte("{}"), nil
		}
		return emptyListEnvelope(gvk), nil
	case err == errFallBack:
		b.target.obj, b.target.fallback = nil, true
		return nil, nil
	default:
		b.target.obj, b.target.fallback = nil, false
		return nil, err
	}
}

// emptyListEnvelope is the protobuf envelope of an empty list of kind gvk.
func emptyListEnvelope(gvk schema.GroupVersionKind) []byte {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	var tm []byte
	tm = appendBytesField(tm, typeMetaVersion, []byte(apiVersion))
	tm = appendBytesField(tm, typeMetaKind, []byte(kind))
	return appendBytesField(bytes.Clone(protoMagic), unknownTypeMeta, tm)
}

// appendBytesField appends length-delimited field num holding v to b.
func appendBytesField(b []byte, num uint64, v []byte) []byte {
	b = binary.AppendUvarint(b, num<<3|wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// listStream reads one protobuf list response.
type listStream struct {
	r    *bufio.Reader
	t    *listTransport
	into runtime.Object // a zero value of the type the caller lists
	buf  []byte         // the current item, reused
	n    int64          // bytes read since the list's start
}

// short turns the end of the body inside a structure into errFallBack
// (the decoder reports a truncated message); other read errors stand.
func short(err error) error {
	if err == io.EOF {
		return errFallBack
	}
	return err
}

// varint reads a varint; at the end of the body it returns io.EOF.
func (s *listStream) varint() (uint64, error) {
	var x uint64
	for i := 0; i < 10; i++ {
		c, err := s.r.ReadByte()
		if err != nil {
			if i > 0 {
				return 0, short(err)
			}
			return 0, err
		}
		s.n++
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errFallBack
}

// bytes reads the next n bytes into s.buf.
func (s *listStream) bytes(n uint64) ([]byte, error) {
	if n > maxObject {
		return nil, errFallBack
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	if _, err := io.ReadFull(s.r, b); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return nil, short(err)
	}
	s.n += int64(n)
	return b, nil
}

// envelope reads the runtime.Unknown around the list, as the protobuf
// serializer reads it: the type first, then the list's bytes, then
// content encoding and type. Anything else falls back.
func (s *listStream) envelope() (runtime.Object, schema.GroupVersionKind, error) {
	var gvk schema.GroupVersionKind
	head, err := s.r.Peek(len(protoMagic))
	if err != nil {
		return nil, gvk, short(err)
	}
	if !bytes.Equal(head, protoMagic) {
		return nil, gvk, errFallBack
	}
	_, _ = s.r.Discard(len(protoMagic))
	var tm runtime.TypeMeta
	var obj runtime.Object
	for {
		tag, err := s.varint()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, gvk, err
		}
		if tag&7 != wireBytes {
			return nil, gvk, errFallBack
		}
		n, err := s.varint()
		if err != nil {
			return nil, gvk, short(err)
		}
		switch tag >> 3 {
		case unknownTypeMeta:
			b, err := s.bytes(n)
			if err != nil || obj != nil {
				return nil, gvk, fallBackUnless(err)
			}
			// As runtime.Unknown's decoder: repeated fields merge.
			if err := tm.Unmarshal(b); err != nil {
				return nil, gvk, errFallBack
			}
		case unknownRaw:
			if obj != nil {
				return nil, gvk, errFallBack
			}
			if obj, gvk, err = s.list(tm.APIVersion, tm.Kind, n); err != nil {
				return nil, gvk, err
			}
		case 3: // contentEncoding: an encoded object is left to client-go
			b, err := s.bytes(n)
			if err != nil || len(b) > 0 {
				return nil, gvk, fallBackUnless(err)
			}
		case 4: // contentType
			if _, err := s.bytes(n); err != nil {
				return nil, gvk, err
			}
		default:
			return nil, gvk, errFallBack
		}
	}
	if obj == nil {
		return nil, gvk, errFallBack
	}
	return obj, gvk, nil
}

// fallBackUnless returns err, or errFallBack where err is nil.
func fallBackUnless(err error) error {
	if err == nil {
		return errFallBack
	}
	return err
}

// list decodes the n bytes of a list the envelope types as apiVersion
// and kind, completed from the type the caller lists as the protobuf
// serializer completes them: its items one at a time, into a slice sized
// from the bytes read so far, and its other fields at the end.
func (s *listStream) list(apiVersion, kind string, n uint64) (runtime.Object, schema.GroupVersionKind, error) {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	into := reflect.New(reflect.TypeOf(s.into).Elem()).Interface().(runtime.Object)
	kinds, _, err := s.t.scheme.ObjectKinds(into)
	if err != nil {
		return nil, gvk, errFallBack
	}
	kindDefaults(&gvk, &kinds[0])
	if len(gvk.Version) == 0 && len(gvk.Group) == 0 {
		gvk.Group = kinds[0].Group
	}
	if len(gvk.Kind) == 0 || len(gvk.Version) == 0 {
		return nil, gvk, errFallBack
	}
	// A kind other than the one asked for is client-go's to decode.
	obj, err := runtime.UseOrCreateObject(s.t.scheme, s.t.scheme, gvk, into)
	if err != nil || obj != into {
		return nil, gvk, errFallBack
	}
	l, err := s.items(obj, n)
	return l, gvk, err
}

// itemsField returns the Items field of list obj, a slice of structs.
func itemsField(obj runtime.Object) (reflect.StructField, bool) {
	lv := reflect.ValueOf(obj)
	if lv.Kind() != reflect.Pointer || lv.Elem().Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	f, ok := lv.Elem().Type().FieldByName("Items")
	return f, ok && f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct
}

// setItems sets the Items of list obj to the count values of items, with
// no more than a sixteenth spare.
func setItems(obj runtime.Object, f reflect.StructField, items reflect.Value, count int) {
	if spare := items.Cap() - count; spare > count/16 {
		exact := reflect.MakeSlice(items.Type(), count, count)
		reflect.Copy(exact, items)
		items = exact
	}
	reflect.ValueOf(obj).Elem().FieldByIndex(f.Index).Set(items.Slice(0, count))
}

// items decodes the n bytes of list obj.
func (s *listStream) items(obj runtime.Object, n uint64) (runtime.Object, error) {
	itemsField, ok := itemsField(obj)
	if !ok {
		return nil, errFallBack
	}
	itemsNum, ok := protoNumber(itemsField)
	if !ok {
		return nil, errFallBack
	}
	var rest []byte // the list's other fields, as they came
	items := reflect.Zero(itemsField.Type)
	count := 0
	start := s.n
	for uint64(s.n-start) < n {
		at := s.n
		tag, err := s.varint()
		if err != nil {
			return nil, short(err)
		}
		num, wire := tag>>3, int(tag&7)
		var size uint64
		switch wire {
		case wireBytes:
			if size, err = s.varint(); err != nil {
				return nil, short(err)
			}
		case wireVarint:
			v, err := s.varint()
			if err != nil {
				return nil, short(err)
			}
			rest = binary.AppendUvarint(binary.AppendUvarint(rest, tag), v)
			continue
		case wireFixed64:
			size = 8
		case wireFixed32:
			size = 4
		default:
			return nil, errFallBack
		}
		if used := uint64(s.n - start); size > n || used+size > n {
			return nil, errFallBack
		}
		b, err := s.bytes(size)
		if err != nil {
			return nil, err
		}
		if num != itemsNum || wire != wireBytes {
			rest = binary.AppendUvarint(rest, tag)
			if wire == wireBytes {
				rest = binary.AppendUvarint(rest, size)
			}
			rest = append(rest, b...)
			continue
		}
		if count == items.Cap() {
			items = growItems(items, count, uint64(s.n-start), n-uint64(s.n-start), uint64(s.n-at))
		}
		items = items.Slice(0, count+1)
		if err := s.t.tables.unmarshal(b, items.Index(count).Addr().Interface()); err != nil {
			return nil, errFallBack
		}
		count++
	}
	if uint64(s.n-start) != n {
		return nil, errFallBack
	}
	if err := s.t.tables.unmarshal(rest, obj); err != nil {
		return nil, errFallBack
	}
	if count > 0 {
		setItems(obj, itemsField, items, count)
	}
	// Typed objects leave client-go's REST client without their type.
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, nil
}

// growItems returns items (holding count values) with room for about the
// rest of the list: the bytes left divided by the mean size of the items
// so far (read bytes of the list, the last item last bytes long), and an
// eighth more. It allocates at most eight times the bytes read (64 KiB at
// first), so that a length the body does not hold costs no more memory
// than the bytes that came.
func growItems(items reflect.Value, count int, read, left, last uint64) reflect.Value {
	mean := max(read/uint64(count+1), 1)
	if count == 0 {
		mean = max(last, 1)
	}
	want := uint64(count) + 1 + left/mean + left/mean/8
	elem := max(uint64(items.Type().Elem().Size()), 1)
	want = min(want, max(64<<10, 8*read)/elem)
	want = max(want, uint64(count)+1)
	grown := reflect.MakeSlice(items.Type(), count, int(want))
	reflect.Copy(grown, items)
	return grown
}
