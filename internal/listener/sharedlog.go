package listener

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// logSegmentSize is the number of notifications in one segment of a
// shared log: the unit the writer allocates and the garbage collector frees.
const logSegmentSize = 256

// logEntry is one notification in a shared log, with the millisecond it was
// distributed at, as an offset from its segment's baseMs. It takes 40 bytes,
// like a Notification, but is stored once for all the log's readers.
type logEntry struct {
	obj, old any
	atMs     uint32 // milliseconds after the segment's baseMs
	kind     Kind
	initial  bool
	// seqOff is the notification's Seq after the segment's seqBase; 0 for
	// a notification without one (a resync). It fits the struct's padding.
	seqOff uint16
}

// notification returns the entry, of segment seg, as a Notification.
func (e *logEntry) notification(seg *logSegment) Notification {
	n := Notification{Obj: e.obj, OldObj: e.old, Kind: e.kind, IsInInitialList: e.initial}
	if e.seqOff != 0 {
		n.Seq = seg.seqBase + uint64(e.seqOff)
	}
	return n
}

// logSegment is a block of consecutive entries. The writer fills it and
// links the next one before publishing that one's first entry; an entry is
// never written again once published. Nothing but readers' cursors refers
// to a segment the writer has left, so a segment is freed once every reader
// has moved past it.
type logSegment struct {
	entries [logSegmentSize]logEntry
	base    uint64 // sequence number of entries[0]
	baseMs  int64  // processor time, in milliseconds, the entries' atMs count from
	seqBase uint64 // the Seq the entries' seqOff count from
	// size is the number of entries the segment holds once the writer has
	// moved on: logSegmentSize, or fewer if the writer left it early
	// because an entry's time no longer fit its 32-bit offset (a segment
	// part-filled for 49 days). It is set before the next segment is linked.
	size atomic.Int32
	next atomic.Pointer[logSegment]
}

// newLogSegment returns an empty segment whose first entry will be number
// base, with times counted from baseMs.
func newLogSegment(base uint64, baseMs int64) *logSegment {
	s := &logSegment{base: base, baseMs: baseMs}
	s.size.Store(logSegmentSize)
	return s
}

// msOf converts a processor time (nanoseconds since it was created) to
// milliseconds.
func msOf(at int64) int64 { return at / int64(time.Millisecond) }

// at returns when entry i was distributed, in processor time rounded down
// to the millisecond.
func (s *logSegment) at(i uint64) int64 {
	return (s.baseMs + int64(s.entries[i].atMs)) * int64(time.Millisecond)
}

// sharedLog is the direct engine's fan-out for listeners that buffer without
// bound (OverflowGrow, one goroutine): Distribute appends each notification
// once, and every such listener reads the log through its own cursor, so a
// notification costs one append however many handlers there are, and a
// pending notification is stored once for all the handlers that have not
// yet taken it.
//
// Readers are attached and detached under the processor's mu, and may be
// while a Distribute is writing; mu here serialises writers (Distribute
// may be called concurrently), attach and detach, and guards readers and
// the readers' writer-side fields. An entry written after a reader was
// attached is that reader's, even if the Distribute writing it began
// before.
type sharedLog struct {
	mu        sync.Mutex
	tail      *logSegment
	tailN     int           // entries used in tail
	lastSeq   uint64        // the Seq of the last entry with one
	published atomic.Uint64 // entries written; entry s is readable once published > s
	readers   []*logReader
}

// attach adds r, its cursor at the end of the log.
func (g *sharedLog) attach(r *logReader) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ensureTailLocked(msOf(r.l.owner.now()), 0)
	r.seg, r.idx = g.tail, g.tailN
	r.seq = g.published.Load()
	r.pub = r.seq
	r.startSeq = r.seq
	r.lastConsumed = r.seq
	r.consumed.Store(r.seq)
	r.curSeg.Store(g.tail)
	g.readers = append(g.readers, r)
}

// detach removes r; with no readers left the log lets go of its entries.
// It freezes r's count of notifications handed to it, and, if r's goroutine
// never started, drops r's cursor (a started goroutine drops it as it
// returns), so that a registration handle kept after removal pins no
// segment.
func (g *sharedLog) detach(r *logReader) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !r.detached {
		r.detached, r.endSeq = true, g.published.Load()
	}
	if !r.l.running.Load() {
		r.seg = nil
		r.curSeg.Store(nil)
	}
	g.readers = slices.DeleteFunc(g.readers, func(x *logReader) bool { return x == r })
	if len(g.readers) == 0 {
		g.tail, g.tailN = nil, 0
	}
}

// ensureTailLocked makes sure the tail segment has room for one entry made at
// millisecond ms, whose offset from the segment's baseMs fits 32 bits (a
// segment part-filled for 49 days is closed early); g.mu held.
func (g *sharedLog) ensureTailLocked(ms int64, seq uint64) {
	if g.tail != nil && g.tailN < logSegmentSize && ms-g.tail.baseMs <= math.MaxUint32 &&
		(seq == 0 || seq > g.tail.seqBase && seq-g.tail.seqBase <= math.MaxUint16) {
		return
	}
	seg := newLogSegment(g.published.Load(), ms)
	seg.seqBase = g.lastSeq
	if seq != 0 {
		seg.seqBase = seq - 1
	}
	if g.tail != nil {
		if g.tailN < logSegmentSize {
			g.tail.size.Store(int32(g.tailN))
		}
		g.tail.next.Store(seg)
	}
	g.tail, g.tailN = seg, 0
}

// refreshBatch is how many readers write remembers, without allocating,
// for a pending-count refresh after it lets go of its lock.
const refreshBatch = 8

// write appends n, distributed at processor time at, for every reader,
// wakes the readers that sleep, and refreshes the pending count of those
// whose backlog may have crossed a threshold or reached a new high. The
// refresh runs after the lock is released: it may log and set metrics.
func (g *sharedLog) write(n Notification, at int64) {
	var buf [refreshBatch]*logReader
	refresh := buf[:0]
	g.mu.Lock()
	if len(g.readers) == 0 {
		g.mu.Unlock()
		return
	}
	ms := msOf(at)
	g.ensureTailLocked(ms, n.Seq)
	// A concurrent Distribute may have read the clock a little earlier than
	// the entry before: such an entry counts from the segment's start.
	off := uint32(max(ms-g.tail.baseMs, 0))
	var seqOff uint16
	if n.Seq != 0 {
		seqOff = uint16(n.Seq - g.tail.seqBase)
		g.lastSeq = n.Seq
	}
	g.tail.entries[g.tailN] = logEntry{obj: n.Obj, old: n.OldObj, atMs: off, kind: n.Kind, initial: n.IsInInitialList, seqOff: seqOff}
	g.tailN++
	if n.initialListAdd() {
		for _, r := range g.readers {
			r.l.syncTracker.Start()
		}
	}
	pub := g.published.Add(1)
	for _, r := range g.readers {
		if r.writtenLocked(pub) {
			refresh = append(refresh, r)
		}
	}
	g.mu.Unlock()
	for _, r := range refresh {
		r.refresh(false)
	}
}
