package tagjson

// Members calls fn with the key and the raw value of each member of the
// JSON object b, in order, while fn returns true. It returns false when
// fn does, when b is not one well-formed object (white space aside), or
// when a key holds an escape or bytes that are not UTF-8 (so that its
// bytes might not be its value).
func Members(b []byte, fn func(key, value []byte) bool) bool {
	s := scanner{b: b}
	if s.space() != '{' {
		return false
	}
	s.i++
	if s.space() == '}' {
		s.i++
	} else {
		for {
			s.space()
			key, plain, err := s.str()
			if err != nil || !plain || s.space() != ':' {
				return false
			}
			s.i++
			s.space()
			from := s.i
			if s.skip(1) != nil || !fn(key, b[from:s.i]) {
				return false
			}
			c := s.space()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return false
			}
		}
	}
	s.space()
	return s.i == len(b)
}
