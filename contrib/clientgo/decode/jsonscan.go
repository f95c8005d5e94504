package decode

import "bufio"

// peek returns the next byte without reading it.
func (s *source) peek() (byte, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// space reads whitespace into pend.
func (s *source) space() error {
	for {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if !isSpace(c) {
			return nil
		}
		s.pend = append(s.pend, c)
		_, _ = s.r.Discard(1)
	}
}

// str reads a string (quotes included) into pend.
func (s *source) str() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '"' {
		return errMalformed
	}
	var sc scanner
	return s.scan(nil, true, &sc)
}

// copyValue copies the next value unchanged: into pend if capture, else
// (after pend) to w. It only finds where the value ends (strings and
// nesting); the decoder checks the rest.
func (s *source) copyValue(w *bufio.Writer, capture bool) error {
	if !capture {
		if err := s.commit(w); err != nil {
			return err
		}
	}
	var sc scanner
	return s.scan(w, capture, &sc)
}

// scanner finds the end of one JSON value.
type scanner struct {
	started, scalar, inStr, esc bool
	depth                       int
}

// step consumes b and returns how many bytes belong to the value and
// whether it ended there.
func (sc *scanner) step(b []byte) (int, bool) {
	for i, c := range b {
		if !sc.started {
			sc.started = true
			switch c {
			case '"':
				sc.inStr = true
			case '{', '[':
				sc.depth = 1
			default:
				sc.scalar = true
			}
			continue
		}
		switch {
		case sc.inStr:
			switch {
			case sc.esc:
				sc.esc = false
			case c == '\\':
				sc.esc = true
			case c == '"':
				sc.inStr = false
				if sc.depth == 0 {
					return i + 1, true
				}
			}
		case sc.scalar:
			if isSpace(c) || c == ',' || c == '}' || c == ']' {
				return i, true
			}
		default:
			switch c {
			case '"':
				sc.inStr = true
			case '{', '[':
				sc.depth++
			case '}', ']':
				sc.depth--
				if sc.depth == 0 {
					return i + 1, true
				}
			}
		}
	}
	return len(b), false
}

// scan moves one value from the reader into pend (capture) or w.
func (s *source) scan(w *bufio.Writer, capture bool, sc *scanner) error {
	for {
		if _, err := s.r.Peek(1); err != nil {
			if sc.scalar {
				return nil // a number or literal ends with the input
			}
			return err
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		n, end := sc.step(buf)
		if capture {
			s.pend = append(s.pend, buf[:n]...)
		} else if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
		_, _ = s.r.Discard(n)
		if end {
			return nil
		}
	}
}
