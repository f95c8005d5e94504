package sharding

import (
	"bytes"
	"runtime"
	"strconv"
)

// goroutineID returns the calling goroutine's id, or 0 if it cannot be
// read (Go has no API for it: it is the number in the first line of the
// goroutine's stack trace). It costs a one-frame stack trace, so it is read
// once per lost range's delete delivery and in a removed registration's
// ShutdownChan, never per call.
func goroutineID() uint64 {
	var buf [64]byte
	b, ok := bytes.CutPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
