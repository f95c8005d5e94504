package decode

import (
	"bufio"
	"math"
)

// source reads the original body. Bytes read are kept in pend until the
// filter writes them (changed or not) with commit, so that on malformed
// input every byte read can still go out unchanged.
type source struct {
	r    *bufio.Reader
	pend []byte
}

// readN appends the next n bytes to pend and returns them.
func (s *source) readN(n int) ([]byte, error) {
	at := len(s.pend)
	s.pend = append(s.pend, make([]byte, n)...)
	m := 0
	for m < n {
		k, err := s.r.Read(s.pend[at+m:])
		m += k
		if err != nil && m < n {
			// The original body's own error (io.EOF at its end), so that
			// the decoder meets the end of the body where it would have.
			s.pend = s.pend[:at+m]
			return nil, err
		}
	}
	return s.pend[at:], nil
}

// readVarint reads a varint into pend. At the end of the input it
// returns io.EOF; a varint longer than 10 bytes is errMalformed.
func (s *source) readVarint() (uint64, error) {
	var x uint64
	for i := 0; i < 10; i++ {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		s.pend = append(s.pend, c)
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errMalformed
}

// commit writes pend to w and empties it.
func (s *source) commit(w *bufio.Writer) error {
	_, err := w.Write(s.pend)
	s.pend = s.pend[:0]
	return err
}

// copyN commits pend, then copies the next n bytes unchanged. (Not
// io.CopyN: w's ReadFrom would read through the reader that flushes w.)
func (s *source) copyN(w *bufio.Writer, n int64) error {
	if err := s.commit(w); err != nil {
		return err
	}
	for n > 0 {
		if _, err := s.r.Peek(1); err != nil {
			return err
		}
		buf, _ := s.r.Peek(min(s.r.Buffered(), int(min(n, 1<<30))))
		if _, err := w.Write(buf); err != nil {
			return err
		}
		_, _ = s.r.Discard(len(buf))
		n -= int64(len(buf))
	}
	return nil
}

// passThrough writes pend and the rest of the input unchanged.
func (s *source) passThrough(w *bufio.Writer) error {
	if err := s.commit(w); err != nil {
		return err
	}
	return s.copyN(w, math.MaxInt64)
}

// release drops pend if it grew large, so that one large object does not
// keep its buffer.
func (s *source) release() {
	if cap(s.pend) > 4*bufSize {
		s.pend = nil
	}
}
