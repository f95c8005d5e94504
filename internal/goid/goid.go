// Package goid reads the calling goroutine's id, which Go has no API for,
// so that a handler calling back into its own registration can be told apart.
package goid

import (
	"bytes"
	"runtime"
	"strconv"
)

// Current returns the calling goroutine's id, or 0 if it cannot be
// read. Go has no API for it, so it is read from the first line of the
// goroutine's stack trace, "goroutine 18 [running]:", as
// golang.org/x/net/http2 does for its debug checks. It costs a stack
// trace of one frame, so callers read it only when a goroutine that
// calls a handler starts and when ShutdownChan is called, never per
// notification.
func Current() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
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
