package decode

import (
	"encoding/binary"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// The model removes managedFields from protobuf bodies the plain way: it
// parses a whole body, deletes the fields and encodes the enclosing
// messages again with their new lengths. Where it cannot parse the path
// to an object, it leaves that part as it came. The filter must decode
// to what the model's output decodes to.

// wireField is one parsed field: its bytes and, for length-delimited
// fields, its value.
type wireField struct {
	num   uint64
	wire  int
	all   []byte // tag and value
	value []byte // for wireBytes
}

// parseMsg splits message b into fields; ok false if malformed.
func parseMsg(b []byte) ([]wireField, bool) {
	var out []wireField
	for i := 0; i < len(b); {
		f, ok := nextField(b, i)
		if !ok {
			return nil, false
		}
		wf := wireField{num: f.num, wire: f.wire, all: b[f.tag:f.end]}
		if f.wire == wireBytes {
			wf.value = b[f.start:f.end]
		}
		out = append(out, wf)
		i = f.end
	}
	return out, true
}

// appendBytesField appends field num with value v.
// modelObject returns object message b without metadata.managedFields
// (metadata is field 1, managedFields field 17 of it), or b if it does
// not parse.
func modelObject(b []byte) []byte {
	fs, ok := parseMsg(b)
	if !ok {
		return b
	}
	var out []byte
	for _, f := range fs {
		if f.num != 1 || f.wire != wireBytes {
			out = append(out, f.all...)
			continue
		}
		mfs, ok := parseMsg(f.value)
		if !ok {
			return b
		}
		var m []byte
		for _, mf := range mfs {
			if (mf.num == 11 || mf.num == 12) && mf.wire == wireBytes {
				// labels and annotations: the decoder may read a
				// malformed entry past its end, into the rest.
				if _, ok := parseMsg(mf.value); !ok {
					return b
				}
			}
			if mf.num != 17 {
				m = append(m, mf.all...)
			}
		}
		out = appendBytesField(out, 1, m)
	}
	return out
}

// modelKind says whether apiVersion/kind is a list or an object with
// metadata the model strips, as client-go's scheme knows it.
func modelKind(apiVersion, kind string) (list, object bool) {
	obj, err := scheme.Scheme.New(schema.FromAPIVersionAndKind(apiVersion, kind))
	if err != nil {
		return false, false
	}
	if meta.IsListType(obj) {
		return true, false
	}
	_, err = meta.Accessor(obj)
	return false, err == nil
}

// modelEnvelope strips the object or list inside the runtime.Unknown b
// (without magic), or returns b. In a watch event (lastRaw), it reads b
// as the decoder does: the type merged from every typeMeta field, the
// object from the last raw field. In a body (the stream filter cannot
// look behind), the type comes from the typeMeta fields before the
// first raw field, which alone is stripped, and a field that is not
// length-delimited before it leaves the body as it came.
func modelEnvelope(b []byte, lastRaw bool) []byte {
	fs, rest := parsePrefix(b)
	if lastRaw && len(rest) > 0 {
		return b
	}
	var apiVersion, kind string
	rawAt := -1
	for i, f := range fs {
		if f.wire != wireBytes {
			if !lastRaw && rawAt < 0 {
				return b
			}
			continue
		}
		switch {
		case f.num == unknownTypeMeta && (lastRaw || rawAt < 0) && len(f.value) <= 4<<10:
			apiVersion, kind = typeMeta(f.value, apiVersion, kind)
		case f.num == unknownRaw && (lastRaw || rawAt < 0):
			rawAt = i
		}
	}
	if rawAt < 0 {
		return b
	}
	list, object := modelKind(apiVersion, kind)
	raw := fs[rawAt].value
	switch {
	case object:
		raw = modelObject(raw)
	case list:
		items, itemsRest := parsePrefix(raw)
		var l []byte
		for _, it := range items {
			if it.num == 2 && it.wire == wireBytes {
				l = appendBytesField(l, 2, modelObject(it.value))
			} else {
				l = append(l, it.all...)
			}
		}
		raw = append(l, itemsRest...)
	default:
		return b
	}
	return append(replaceField(fs, rawAt, raw), rest...)
}

// parsePrefix splits b into the fields it parses from the start and the
// bytes from the first it cannot parse.
func parsePrefix(b []byte) ([]wireField, []byte) {
	var out []wireField
	i := 0
	for i < len(b) {
		f, ok := nextField(b, i)
		if !ok {
			break
		}
		wf := wireField{num: f.num, wire: f.wire, all: b[f.tag:f.end]}
		if f.wire == wireBytes {
			wf.value = b[f.start:f.end]
		}
		out = append(out, wf)
		i = f.end
	}
	return out, b[i:]
}

// modelBody strips a protobuf list or object body.
func modelBody(b []byte) []byte {
	if len(b) < len(protoMagic) || string(b[:len(protoMagic)]) != string(protoMagic) {
		return b
	}
	return append(append([]byte(nil), protoMagic...), modelEnvelope(b[len(protoMagic):], false)...)
}

// modelWatch strips every complete frame of a protobuf watch stream.
func modelWatch(b []byte) []byte {
	var out []byte
	for len(b) >= 4 {
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			break
		}
		frame := modelEvent(b[4 : 4+n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(frame)))
		out = append(out, frame...)
		b = b[4+n:]
	}
	return append(out, b...)
}

// modelEvent strips the object of an encoded WatchEvent.
func modelEvent(b []byte) []byte {
	fs, ok := parseMsg(b)
	if !ok {
		return b
	}
	objAt := -1
	for i, f := range fs {
		if f.num == eventObject && f.wire == wireBytes {
			objAt = i
		}
	}
	if objAt < 0 {
		return b
	}
	rfs, ok := parseMsg(fs[objAt].value)
	if !ok {
		return b
	}
	rawAt := -1
	for i, f := range rfs {
		if f.num == rawExtRaw && f.wire == wireBytes {
			rawAt = i
		}
	}
	if rawAt < 0 {
		return b
	}
	raw := rfs[rawAt].value
	if len(raw) < len(protoMagic) || string(raw[:len(protoMagic)]) != string(protoMagic) {
		return b
	}
	raw = append(append([]byte(nil), protoMagic...), modelEnvelope(raw[len(protoMagic):], true)...)
	return replaceField(fs, objAt, replaceField(rfs, rawAt, raw))
}

// replaceField encodes fields fs again with the value of fs[at] (a
// length-delimited field) replaced by v.
func replaceField(fs []wireField, at int, v []byte) []byte {
	var out []byte
	for i, f := range fs {
		if i == at {
			out = appendBytesField(out, f.num, v)
		} else {
			out = append(out, f.all...)
		}
	}
	return out
}
