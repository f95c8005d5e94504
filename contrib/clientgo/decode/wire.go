package decode

import "errors"

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// errMalformed reports bytes that are not the protobuf (or JSON) the
// filter expects; the filter then passes the rest of the stream through
// unchanged, so that the decoder meets the same bytes client-go's would.
var errMalformed = errors.New("decode: malformed input")

// uvarint reads a varint from b, returning it and its length (0 if b
// holds no complete varint of at most 10 bytes).
func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// varintLen is the length of v's minimal varint encoding.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// putVarintN writes v into b as a varint of exactly len(b) bytes; v must
// fit (varintLen(v) == len(b)).
func putVarintN(b []byte, v uint64) {
	for i := range b {
		c := byte(v & 0x7f)
		v >>= 7
		if i < len(b)-1 {
			c |= 0x80
		}
		b[i] = c
	}
}

// field is one parsed protobuf field header: its number, wire type, where
// its tag starts, where its value starts and ends (for wireBytes, the
// bytes after the length).
type field struct {
	num        uint64
	wire       int
	tag        int
	start, end int
}

// nextField parses the field at b[i:]. ok is false when the bytes there
// are not a well-formed field that fits in b.
func nextField(b []byte, i int) (f field, ok bool) {
	t, n := uvarint(b[i:])
	if n == 0 || t>>3 == 0 || t>>3 > 1<<29-1 {
		return f, false
	}
	f.num, f.wire, f.tag = t>>3, int(t&7), i
	i += n
	switch f.wire {
	case wireVarint:
		_, m := uvarint(b[i:])
		if m == 0 {
			return f, false
		}
		f.start, f.end = i, i+m
	case wireFixed64:
		f.start, f.end = i, i+8
	case wireFixed32:
		f.start, f.end = i, i+4
	case wireBytes:
		l, m := uvarint(b[i:])
		if m == 0 || l > uint64(len(b)-i-m) {
			return f, false
		}
		f.start = i + m
		f.end = f.start + int(l)
	default:
		return f, false
	}
	if f.end > len(b) {
		return f, false
	}
	return f, true
}
