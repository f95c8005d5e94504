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
	for more := !s.enter('}'); more; {
		key, plain, err := s.key()
		if err != nil || !plain {
			return false
		}
		s.space()
		start := s.i
		if s.skip(1) != nil || !fn(key, b[start:s.i]) {
			return false
		}
		if more, err = s.next('}'); err != nil {
			return false
		}
	}
	s.space()
	return s.i == len(b)
}
