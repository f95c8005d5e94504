package tagjson

import (
	"errors"
	"unicode/utf8"
)

// errSyntax is any input that is not JSON; errUnsupported is JSON this
// decoder leaves to the reference decoder. Neither is shown to users:
// the caller decodes the input again with the reference decoder.
var (
	errSyntax      = errors.New("tagjson: not JSON")
	errUnsupported = errors.New("tagjson: decoded by the reference decoder")
)

// scanner reads one JSON text.
type scanner struct {
	b     []byte
	i     int
	quote int // where the string str read last starts, at its opening quote
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// space skips white space and returns the next byte, or 0 at the end.
func (s *scanner) space() byte {
	for s.i < len(s.b) {
		if c := s.b[s.i]; !isSpace(c) {
			return c
		}
		s.i++
	}
	return 0
}

// literal consumes lit (true, false or null) at s.i.
func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return errSyntax
	}
	s.i += len(lit)
	return nil
}

// str consumes the string at s.i and returns its contents without the
// quotes; plain reports that they hold no escape and are valid UTF-8, so
// that they are the string's value as they are.
func (s *scanner) str() (raw []byte, plain bool, err error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, errSyntax
	}
	s.quote = s.i
	start := s.i + 1
	plain = true
	ascii := true
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			raw = s.b[start:i]
			if !ascii && plain {
				plain = utf8.Valid(raw)
			}
			return raw, plain, nil
		case c == '\\':
			plain = false
			i++
			if i >= len(s.b) {
				return nil, false, errSyntax
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.b) {
					return nil, false, errSyntax
				}
				for _, h := range s.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, errSyntax
					}
				}
				i += 4
			default:
				return nil, false, errSyntax
			}
		case c < 0x20:
			return nil, false, errSyntax
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, errSyntax
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number consumes the number at s.i, checking its grammar, and returns
// its text; integer reports that it has no fraction and no exponent.
func (s *scanner) number() (text []byte, integer bool, err error) {
	start, i := s.i, s.i
	digits := func() int {
		n := 0
		for i < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s.b) && s.b[i] == '-' {
		i++
	}
	if i < len(s.b) && s.b[i] == '0' {
		i++
	} else if digits() == 0 {
		return nil, false, errSyntax
	}
	integer = true
	if i < len(s.b) && s.b[i] == '.' {
		i++
		integer = false
		if digits() == 0 {
			return nil, false, errSyntax
		}
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		integer = false
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false, errSyntax
		}
	}
	s.i = i
	return s.b[start:i], integer, nil
}

// enter consumes the bracket that opens an object or an array at s.i and
// reports whether it is empty, its closing bracket close consumed too.
func (s *scanner) enter(close byte) (empty bool) {
	s.i++
	if s.space() == close {
		s.i++
		return true
	}
	return false
}

// key consumes an object's key and the colon after it, returning the key
// as str does.
func (s *scanner) key() (raw []byte, plain bool, err error) {
	s.space()
	if raw, plain, err = s.str(); err != nil {
		return nil, false, err
	}
	if s.space() != ':' {
		return nil, false, errSyntax
	}
	s.i++
	return raw, plain, nil
}

// next consumes what follows a member or an element: a comma (more
// follow) or the closing bracket close.
func (s *scanner) next(close byte) (more bool, err error) {
	switch s.space() {
	case ',':
		s.i++
		return true, nil
	case close:
		s.i++
		return false, nil
	}
	return false, errSyntax
}

// skip consumes one value of any kind, checking its syntax.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return errUnsupported
	}
	switch s.space() {
	case '{', '[':
		close, object := byte(']'), s.b[s.i] == '{'
		if object {
			close = '}'
		}
		for more := !s.enter(close); more; {
			if object {
				if _, _, err := s.key(); err != nil {
					return err
				}
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			var err error
			if more, err = s.next(close); err != nil {
				return err
			}
		}
		return nil
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, _, err := s.number()
		return err
	}
}

// maxDepth bounds the nesting the decoder follows; deeper input is left
// to the reference decoder, which has its own bound.
const maxDepth = 1000

// count returns how many values the array or object starting at s.i
// holds, without consuming it or checking more than its brackets and
// strings; the decode that follows checks the rest.
func (s *scanner) count() int {
	n, depth := 0, 0
	empty := true
	for i := s.i; i < len(s.b); i++ {
		switch c := s.b[i]; c {
		case '{', '[':
			depth++
			if depth > 1 && empty {
				n, empty = n+1, false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return n
			}
		case ',':
			if depth == 1 {
				empty = true
			}
		case '"':
			if depth == 1 && empty {
				n, empty = n+1, false
			}
			for i++; i < len(s.b) && s.b[i] != '"'; i++ {
				if s.b[i] == '\\' {
					i++
				}
			}
		default:
			if depth == 1 && empty && !isSpace(c) && c != ':' {
				n, empty = n+1, false
			}
		}
	}
	return n
}
