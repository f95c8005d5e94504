package tagproto

import (
	"errors"
	"fmt"
	"io"
)

// The errors the generated Unmarshal methods return, with their texts.
var (
	errInvalidLength   = errors.New("proto: negative length found during unmarshaling")
	errIntOverflow     = errors.New("proto: integer overflow")
	errUnexpectedGroup = errors.New("proto: unexpected end of group")
)

// varint reads a varint at b[i:] the way generated code does: at most ten
// bytes' worth of shifts, failing at the end of b.
func varint(b []byte, i int) (uint64, int, error) {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, i, errIntOverflow
		}
		if i >= len(b) {
			return 0, i, io.ErrUnexpectedEOF
		}
		c := b[i]
		i++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, i, nil
		}
	}
}

// span reads a length at b[i:] and returns the bounds of the bytes it
// covers, checked against b as generated code checks them.
func span(b []byte, i int) (start, end int, err error) {
	n, i, err := varint(b, i)
	if err != nil {
		return 0, 0, err
	}
	l := int(n)
	if l < 0 {
		return 0, 0, errInvalidLength
	}
	end = i + l
	if end < 0 {
		return 0, 0, errInvalidLength
	}
	if end > len(b) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, end, nil
}

// skip returns the length of the field (tag included) at the start of b,
// groups and all, or the error generated code gives for it.
func skip(b []byte) (int, error) {
	i, depth := 0, 0
	for i < len(b) {
		tag, j, err := varint(b, i)
		if err != nil {
			return 0, err
		}
		i = j
		switch wt := int(tag & 7); wt {
		case 0:
			for {
				if i >= len(b) {
					return 0, io.ErrUnexpectedEOF
				}
				i++
				if b[i-1] < 0x80 {
					break
				}
				if i-j >= 10 {
					return 0, errIntOverflow
				}
			}
		case 1:
			i += 8
		case 2:
			n, k, err := varint(b, i)
			if err != nil {
				return 0, err
			}
			l := int(n)
			if l < 0 {
				return 0, errInvalidLength
			}
			i = k + l
		case 3:
			depth++
		case 4:
			if depth == 0 {
				return 0, errUnexpectedGroup
			}
			depth--
		case 5:
			i += 4
		default:
			return 0, fmt.Errorf("proto: illegal wireType %d", wt)
		}
		if i < 0 {
			return 0, errInvalidLength
		}
		if depth == 0 {
			return i, nil
		}
	}
	return 0, io.ErrUnexpectedEOF
}
