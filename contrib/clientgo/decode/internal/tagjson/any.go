package tagjson

import (
	"bytes"
	"strconv"
	"unsafe"
)

// UnmarshalObject decodes the JSON object b as the reference decoder
// decodes it into a map[string]any with its integers kept (see
// anyValue). On any error, decode b again with the reference decoder,
// whose result and error stand.
func (d *Decoder) UnmarshalObject(b []byte) (map[string]any, error) {
	s := scanner{b: b}
	if s.space() != '{' {
		return nil, errUnsupported
	}
	m, err := d.anyObject(&s, 0)
	if err != nil {
		return nil, err
	}
	if s.space(); s.i != len(b) {
		return nil, errSyntax
	}
	return m, nil
}

// anyValue decodes the value at s.i as the reference decoder decodes into
// an empty interface with its integers kept: an object is a
// map[string]any, an array a []any, a number without a fraction that fits
// an int64 an int64 and any other a float64.
func (d *Decoder) anyValue(s *scanner, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errUnsupported
	}
	switch s.space() {
	case '{':
		return d.anyObject(s, depth)
	case '[':
		out := make([]any, 0, s.count())
		for more := !s.enter(']'); more; {
			v, err := d.anyValue(s, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if more, err = s.next(']'); err != nil {
				return nil, err
			}
		}
		return out, nil
	case '"':
		raw, plain, err := s.str()
		if err != nil {
			return nil, err
		}
		var v string
		if !plain {
			err = d.escaped(s, raw, unsafe.Pointer(&v))
		} else {
			v = d.str(raw)
		}
		return v, err
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.literal("null")
	}
	text, _, err := s.number()
	if err != nil {
		return nil, err
	}
	t := unsafe.String(unsafe.SliceData(text), len(text))
	if bytes.IndexByte(text, '.') < 0 {
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return nil, errUnsupported
	}
	return f, nil
}

// anyObject decodes the object at s.i into a map[string]any; a key met
// twice keeps its last value, as in the reference decoder.
func (d *Decoder) anyObject(s *scanner, depth int) (map[string]any, error) {
	m := make(map[string]any, s.count())
	for more := !s.enter('}'); more; {
		key, err := d.key(s)
		if err != nil {
			return nil, err
		}
		v, err := d.anyValue(s, depth+1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		if more, err = s.next('}'); err != nil {
			return nil, err
		}
	}
	return m, nil
}
