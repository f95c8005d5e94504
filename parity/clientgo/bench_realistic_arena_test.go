package parity

import (
	"sync"
	"syscall"
)

// offHeap holds the realistic server's encoded objects outside the Go
// heap (anonymous mmap), so that a gigabyte of encoded Pods neither counts
// in the heap figures of the informer under test nor moves the garbage
// collector's pacing (the heap goal is relative to the live heap).
type offHeap struct {
	mu     sync.Mutex
	cur    []byte
	chunks [][]byte
}

// offHeapChunk is the size of each mapping.
const offHeapChunk = 64 << 20

// copyOf returns a copy of b in off-heap memory.
func (a *offHeap) copyOf(b []byte) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(b) > cap(a.cur)-len(a.cur) {
		size := max(offHeapChunk, len(b))
		m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			panic(err)
		}
		a.chunks = append(a.chunks, m)
		a.cur = m[:0]
	}
	start := len(a.cur)
	a.cur = append(a.cur, b...)
	return a.cur[start:len(a.cur):len(a.cur)]
}

// free unmaps everything; no slice returned by copyOf may be used after.
func (a *offHeap) free() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.chunks {
		_ = syscall.Munmap(m)
	}
	a.chunks, a.cur = nil, nil
}
