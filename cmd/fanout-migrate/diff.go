package main

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// maxDiffCells bounds the LCS table; past it the changed middle of the
// file is shown as one replaced block (still a correct diff).
const maxDiffCells = 16 << 20

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// unifiedDiff returns the unified diff from a to b, "" when they are equal.
func unifiedDiff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// Walk the ops, cutting hunks around each run of changes.
	aLine, bLine := 1, 1
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			aLine++
			bLine++
			i++
			continue
		}
		start := max(i-diffContext, 0)
		// Extend the hunk while the gap to the next change is short.
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		end = min(end+diffContext, len(ops))
		as, bs := aLine-(i-start), bLine-(i-start)
		al, bl := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				al++
			}
			if op.kind != '-' {
				bl++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(as, al), hunkRange(bs, bl))
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		for _, op := range ops[i:end] {
			if op.kind != '+' {
				aLine++
			}
			if op.kind != '-' {
				bLine++
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s into lines, each keeping its newline.
func splitLines(s []byte) []string {
	var lines []string
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, string(s))
			break
		}
		lines = append(lines, string(s[:i+1]))
		s = s[i+1:]
	}
	return lines
}

// diffLines is a shortest edit script from a to b: common prefix and
// suffix, and a longest common subsequence of the rest.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		ops = append(ops, diffOp{' ', a[p]})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	ops = append(ops, lcsOps(ma, mb)...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func lcsOps(a, b []string) []diffOp {
	n, m := len(a), len(b)
	var ops []diffOp
	if (n+1)*(m+1) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// t[i][j] is the LCS length of a[i:] and b[j:].
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
