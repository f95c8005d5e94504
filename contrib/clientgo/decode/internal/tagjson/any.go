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
		n := s.count()
		s.i++
		out := make([]any, 0, n)
		if s.space() == ']' {
			s.i++
			return out, nil
		}
		for {
			v, err := d.anyValue(s, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			switch s.space() {
			case ',':
				s.i++
			case ']':
				s.i++
				return out, nil
			default:
				return nil, errSyntax
			}
		}
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
	s.i++
	if s.space() == '}' {
		s.i++
		return m, nil
	}
	for {
		s.space()
		raw, plain, err := s.str()
		if err != nil {
			return nil, err
		}
		var key string
		if plain {
			key = d.str(raw)
		} else if err := d.escaped(s, raw, unsafe.Pointer(&key)); err != nil {
			return nil, err
		}
		if s.space() != ':' {
			return nil, errSyntax
		}
		s.i++
		v, err := d.anyValue(s, depth+1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		switch s.space() {
		case ',':
			s.i++
		case '}':
			s.i++
			return m, nil
		default:
			return nil, errSyntax
		}
	}
}
