package decode

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// jnode is what to drop below one JSON value: members of an object (by
// key) to drop or descend into, and what to do in each element of an
// array.
type jnode struct {
	drop  bool
	keys  map[string]*jnode
	elems *jnode
}

// jsonTrie builds the trie of paths, each from an object's root.
func jsonTrie(paths [][]string) *jnode {
	root := &jnode{}
	for _, p := range paths {
		n := root
		for i, k := range p {
			if n.keys == nil {
				n.keys = map[string]*jnode{}
			}
			c := n.keys[k]
			if c == nil {
				c = &jnode{}
				n.keys[k] = c
			}
			if i == len(p)-1 {
				c.drop = true
			}
			n = c
		}
	}
	return root
}

// topTrie is what to drop in a response body's top-level values: the
// paths from the root of a single object, of each list item ("items") and
// of a watch event's object ("object").
func topTrie(obj *jnode) *jnode {
	return mergeTrie(obj, &jnode{keys: map[string]*jnode{
		"items":  {elems: obj},
		"object": obj,
	}})
}

// mergeTrie returns a trie doing what a and b do.
func mergeTrie(a, b *jnode) *jnode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.drop || b.drop:
		return &jnode{drop: true}
	}
	m := &jnode{elems: mergeTrie(a.elems, b.elems)}
	if len(a.keys)+len(b.keys) > 0 {
		m.keys = map[string]*jnode{}
		for k, v := range a.keys {
			m.keys[k] = v
		}
		for k, v := range b.keys {
			m.keys[k] = mergeTrie(m.keys[k], v)
		}
	}
	return m
}

// jsonFilter removes members from a stream of JSON values (a list or
// object body, or a watch stream of events). Values it need not look
// into are copied as they come; members it drops are held until they are
// known to be well formed and followed by a ',' or '}', so that bytes
// the decoder would reject reach it unchanged.
type jsonFilter struct {
	top *jnode
}

// stream filters every top-level value of src.
func (f *jsonFilter) stream(src *source, w *bufio.Writer) error {
	for {
		if err := src.space(); err != nil {
			return err
		}
		if err := src.commit(w); err != nil {
			return err
		}
		if err := f.value(src, w, f.top); err != nil {
			return err
		}
	}
}

// value filters the next value after trie n.
func (f *jsonFilter) value(src *source, w *bufio.Writer, n *jnode) error {
	c, err := src.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{' && n.keys != nil:
		return f.object(src, w, n)
	case c == '[' && n.elems != nil:
		return f.array(src, w, n.elems)
	}
	if err := src.commit(w); err != nil {
		return err
	}
	return src.copyValue(w, false)
}

// object filters an object, dropping the members n says to drop.
func (f *jsonFilter) object(src *source, w *bufio.Writer, n *jnode) (err error) {
	src.pend = append(src.pend, '{')
	_, _ = src.r.Discard(1)
	if err := src.commit(w); err != nil {
		return err
	}
	emitted := false // a member has been written
	comma := -1      // where the pending member's ',' is in pend
	defer func() {
		// Bytes that go out unchanged after an error must not start
		// with a ',' whose member before was dropped.
		if err != nil && !emitted && comma >= 0 && comma < len(src.pend) && src.pend[comma] == ',' {
			src.pend = append(src.pend[:comma], src.pend[comma+1:]...)
		}
	}()
	for first := true; ; first = false {
		comma = -1
		if err := src.space(); err != nil {
			return err
		}
		c, err := src.peek()
		if err != nil {
			return err
		}
		if c == '}' {
			src.pend = append(src.pend, '}')
			_, _ = src.r.Discard(1)
			return src.commit(w)
		}
		if !first {
			if c != ',' {
				return errMalformed
			}
			comma = len(src.pend)
			src.pend = append(src.pend, ',')
			_, _ = src.r.Discard(1)
			if err := src.space(); err != nil {
				return err
			}
		}
		keyAt := len(src.pend)
		if err := src.str(); err != nil {
			return err
		}
		key := src.pend[keyAt:]
		child, err := lookup(n, key)
		if err != nil {
			return err
		}
		if err := src.space(); err != nil {
			return err
		}
		if c, err := src.peek(); err != nil {
			return err
		} else if c != ':' {
			return errMalformed
		}
		src.pend = append(src.pend, ':')
		_, _ = src.r.Discard(1)
		if err := src.space(); err != nil {
			return err
		}
		if child != nil && child.drop {
			at := len(src.pend)
			if err := src.copyValue(w, true); err != nil {
				return err
			}
			if !json.Valid(src.pend[at:]) {
				return errMalformed
			}
			if err := src.space(); err != nil {
				return err
			}
			if c, err := src.peek(); err != nil {
				return err
			} else if c != ',' && c != '}' {
				return errMalformed
			}
			src.pend = src.pend[:0]
			continue
		}
		if comma >= 0 && !emitted {
			src.pend = append(src.pend[:comma], src.pend[comma+1:]...)
		}
		comma = -1
		if err := src.commit(w); err != nil {
			return err
		}
		emitted = true
		if child != nil {
			err = f.value(src, w, child)
		} else {
			err = src.copyValue(w, false)
		}
		if err != nil {
			return err
		}
	}
}

// lookup returns the trie node of the member whose quoted key is raw.
func lookup(n *jnode, raw []byte) (*jnode, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return n.keys[string(raw[1:len(raw)-1])], nil
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, errMalformed
	}
	return n.keys[k], nil
}

// array filters each element of an array after trie n.
func (f *jsonFilter) array(src *source, w *bufio.Writer, n *jnode) error {
	src.pend = append(src.pend, '[')
	_, _ = src.r.Discard(1)
	for first := true; ; first = false {
		if err := src.space(); err != nil {
			return err
		}
		c, err := src.peek()
		if err != nil {
			return err
		}
		if c == ']' {
			src.pend = append(src.pend, ']')
			_, _ = src.r.Discard(1)
			return src.commit(w)
		}
		if !first {
			if c != ',' {
				return errMalformed
			}
			src.pend = append(src.pend, ',')
			_, _ = src.r.Discard(1)
			if err := src.space(); err != nil {
				return err
			}
		}
		if err := src.commit(w); err != nil {
			return err
		}
		if err := f.value(src, w, n); err != nil {
			return err
		}
	}
}
