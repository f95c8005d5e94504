package decode

// edit is one field to hide, b[at:end] with a tag of n bytes: either its
// tag becomes one of field number to with the same wire type, in as many
// bytes, or (wrap) the whole field becomes an unknown length-delimited
// field of number to that holds the old bytes.
type edit struct {
	at, n, end int
	to         uint64
	wire       int
	wrap       bool
}

// hide returns the edit hiding field f (tag of tagLen bytes) after plan
// fp; ok is false if it cannot be hidden in place (two bytes long, and no
// free field number of its tag's length).
func hide(f field, tagLen int, fp *fieldPlan) (edit, bool) {
	if fp.to != 0 {
		return edit{at: f.tag, n: tagLen, end: f.end, to: fp.to, wire: f.wire}, true
	}
	if f.end-f.tag < 3 {
		return edit{}, false
	}
	return edit{at: f.tag, end: f.end, to: fp.wrapTo, wrap: true}, true
}

// apply makes edit e in b.
func (e edit) apply(b []byte) {
	if !e.wrap {
		putVarintN(b[e.at:e.at+e.n], e.to<<3|uint64(e.wire))
		return
	}
	// A two-byte tag, then a length of as many bytes as it needs for
	// what remains, then the old bytes that remain.
	size := e.end - e.at - 2
	l := 1
	for varintLen(uint64(size-l)) > l {
		l++
	}
	putVarintN(b[e.at:e.at+2], e.to<<3|wireBytes)
	putVarintN(b[e.at+2:e.at+2+l], uint64(size-l))
}

// hideFields rewrites, in place, the tags of the fields plan p hides in
// the message b, and returns the edits made (scratch is reused for
// them). It changes nothing unless every field along the plan's paths is
// well formed, so that a malformed message reaches the decoder as it came
// and fails as it does in client-go.
func hideFields(b []byte, p *msgPlan, scratch []edit) []edit {
	edits, ok := planEdits(b, 0, len(b), p, scratch[:0])
	if !ok {
		return edits[:0]
	}
	for _, e := range edits {
		e.apply(b)
	}
	return edits
}

// planEdits appends the edits plan p makes in the message b[lo:hi].
func planEdits(b []byte, lo, hi int, p *msgPlan, edits []edit) ([]edit, bool) {
	msg := b[:hi]
	for i := lo; i < hi; {
		f, ok := nextField(msg, i)
		if !ok {
			return edits, false
		}
		i = f.end
		if p.isMap(f.num) && f.wire == wireBytes && !wellFormed(msg[f.start:f.end]) {
			return edits, false
		}
		fp := p.find(f.num)
		if fp == nil {
			continue
		}
		tagLen := tagLength(msg[f.tag:])
		switch {
		case fp.drop:
			if e, ok := hide(f, tagLen, fp); ok {
				edits = append(edits, e)
			}
		case len(fp.keys) > 0 && f.wire == wireBytes:
			key, ok := entryKey(msg[f.start:f.end])
			if !ok {
				return edits, false
			}
			for _, k := range fp.keys {
				if string(key) == k {
					if e, ok := hide(f, tagLen, fp); ok {
						edits = append(edits, e)
					}
					break
				}
			}
		case fp.sub != nil && f.wire == wireBytes:
			edits, ok = planEdits(b, f.start, f.end, fp.sub, edits)
			if !ok {
				return edits, false
			}
		}
	}
	return edits, true
}

// wellFormed reports whether message b parses as fields that end within
// it.
func wellFormed(b []byte) bool {
	for i := 0; i < len(b); {
		f, ok := nextField(b, i)
		if !ok {
			return false
		}
		i = f.end
	}
	return true
}

// tagLength is the length of the varint tag at the start of b (which
// nextField has checked).
func tagLength(b []byte) int {
	_, n := uvarint(b)
	return n
}

// entryKey returns the key (field 1) of a map entry message; ok is false
// if the entry is not well formed. A missing key is the empty string.
func entryKey(b []byte) (key []byte, ok bool) {
	for i := 0; i < len(b); {
		f, ok := nextField(b, i)
		if !ok {
			return nil, false
		}
		if f.num == 1 && f.wire == wireBytes {
			key = b[f.start:f.end]
		}
		i = f.end
	}
	return key, true
}
