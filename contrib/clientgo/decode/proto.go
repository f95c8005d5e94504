package decode

import (
	"bufio"
	"bytes"
	"encoding/binary"
)

// protoMagic starts every enveloped Kubernetes protobuf message (a
// runtime.Unknown holding the object's type and bytes).
var protoMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// Fields of runtime.Unknown, metav1.WatchEvent, runtime.RawExtension and
// runtime.TypeMeta.
const (
	unknownTypeMeta = 1
	unknownRaw      = 2
	eventObject     = 2
	rawExtRaw       = 1
	typeMetaVersion = 1
	typeMetaKind    = 2
)

// protoFilter filters the protobuf bodies of one transport.
type protoFilter struct {
	plans *planner
	edits []edit
}

// object filters the body of a list or get: one enveloped object or list.
// A list's items are held and rewritten one at a time.
func (f *protoFilter) object(src *source, w *bufio.Writer) error {
	if head, err := src.r.Peek(len(protoMagic)); err != nil || !bytes.Equal(head, protoMagic) {
		return errMalformed
	}
	if _, err := src.readN(len(protoMagic)); err != nil {
		return err
	}
	var apiVersion, kind string
	var seenType, seenRaw bool
	for {
		tag, err := src.readVarint()
		if err != nil {
			return err
		}
		num, wire := tag>>3, int(tag&7)
		if wire != wireBytes {
			return errMalformed
		}
		n, err := src.readVarint()
		if err != nil {
			return err
		}
		switch {
		case num == unknownTypeMeta && n <= 4<<10:
			b, err := src.readN(int(n))
			if err != nil {
				return err
			}
			apiVersion, kind = typeMeta(b, apiVersion, kind)
			seenType = true
		case num == unknownRaw:
			// The object's type must be known before its bytes: an
			// apiserver writes typeMeta first. A body that repeats the
			// envelope's fields is filtered after the first type only.
			p := kindPlan{}
			if seenType && !seenRaw {
				p = f.plans.forKind(apiVersion, kind)
			}
			seenRaw = true
			if err := f.raw(src, w, p, int64(n)); err != nil {
				return err
			}
			continue
		default:
			if err := src.copyN(w, int64(n)); err != nil {
				return err
			}
		}
		if err := src.commit(w); err != nil {
			return err
		}
	}
}

// raw filters the n bytes of an object or list message after plan p.
func (f *protoFilter) raw(src *source, w *bufio.Writer, p kindPlan, n int64) error {
	switch {
	case p.item != nil:
		return f.list(src, w, p, n)
	case p.object != nil && n <= maxObject:
		b, err := src.readN(int(n))
		if err != nil {
			return err
		}
		f.edits = hideFields(b, p.object, f.edits)
		return src.commit(w)
	default:
		return src.copyN(w, n)
	}
}

// list filters the n bytes of a list message, item by item.
func (f *protoFilter) list(src *source, w *bufio.Writer, p kindPlan, n int64) error {
	for n > 0 {
		before := len(src.pend)
		tag, err := src.readVarint()
		if err != nil {
			return err
		}
		num, wire := tag>>3, int(tag&7)
		var size uint64
		switch wire {
		case wireBytes:
			if size, err = src.readVarint(); err != nil {
				return err
			}
		case wireVarint:
			if _, err := src.readVarint(); err != nil {
				return err
			}
		case wireFixed64:
			size = 8
		case wireFixed32:
			size = 4
		default:
			return errMalformed
		}
		head := int64(len(src.pend) - before)
		if head+int64(size) > n || size > uint64(n) {
			return errMalformed
		}
		n -= head + int64(size)
		if num == p.itemsField && wire == wireBytes && size <= maxObject {
			b, err := src.readN(int(size))
			if err != nil {
				return err
			}
			f.edits = hideFields(b, p.item, f.edits)
			if err := src.commit(w); err != nil {
				return err
			}
			continue
		}
		if err := src.copyN(w, int64(size)); err != nil {
			return err
		}
	}
	return src.commit(w)
}

// watch filters a protobuf watch stream: frames of a 4-byte big-endian
// length and a metav1.WatchEvent whose object is an enveloped object.
func (f *protoFilter) watch(src *source, w *bufio.Writer) error {
	for {
		head, err := src.readN(4)
		if err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(head)
		if n > maxObject {
			if err := src.copyN(w, int64(n)); err != nil {
				return err
			}
			continue
		}
		b, err := src.readN(int(n))
		if err != nil {
			return err
		}
		f.event(b)
		if err := src.commit(w); err != nil {
			return err
		}
	}
}

// event rewrites the object of one encoded watch event in place.
func (f *protoFilter) event(b []byte) {
	obj, ok := bytesField(b, eventObject)
	if !ok {
		return
	}
	raw, ok := bytesField(obj, rawExtRaw)
	if !ok || !bytes.HasPrefix(raw, protoMagic) {
		return
	}
	f.enveloped(raw[len(protoMagic):])
}

// enveloped rewrites in place the object inside the runtime.Unknown b,
// read as the decoder reads it: the type merged from every typeMeta
// field, the object from the last raw field.
func (f *protoFilter) enveloped(b []byte) {
	var apiVersion, kind string
	var raw []byte
	for i := 0; i < len(b); {
		fl, ok := nextField(b, i)
		if !ok {
			return
		}
		i = fl.end
		if fl.wire != wireBytes {
			continue
		}
		switch fl.num {
		case unknownTypeMeta:
			apiVersion, kind = typeMeta(b[fl.start:fl.end], apiVersion, kind)
		case unknownRaw:
			raw = b[fl.start:fl.end]
		}
	}
	if p := f.plans.forKind(apiVersion, kind); p.object != nil && raw != nil {
		f.edits = hideFields(raw, p.object, f.edits)
	}
}

// bytesField returns the last occurrence of length-delimited field num in
// message b (as the decoder keeps the last); ok is false if b is not well
// formed or has no such field.
func bytesField(b []byte, num uint64) (v []byte, ok bool) {
	for i := 0; i < len(b); {
		f, good := nextField(b, i)
		if !good {
			return nil, false
		}
		if f.num == num && f.wire == wireBytes {
			v, ok = b[f.start:f.end], true
		}
		i = f.end
	}
	return v, ok
}

// typeMeta reads apiVersion and kind from an encoded runtime.TypeMeta
// into the values read so far (the decoder merges repeated fields).
func typeMeta(b []byte, apiVersion, kind string) (string, string) {
	for i := 0; i < len(b); {
		f, ok := nextField(b, i)
		if !ok {
			return "", ""
		}
		if f.wire == wireBytes {
			switch f.num {
			case typeMetaVersion:
				apiVersion = string(b[f.start:f.end])
			case typeMetaKind:
				kind = string(b[f.start:f.end])
			}
		}
		i = f.end
	}
	return apiVersion, kind
}
