package main

import (
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies a unified diff made by unifiedDiff to tree, a test
// oracle for the diff: it checks every context and removed line.
func applyDiff(t *testing.T, tree map[string][]byte, diff string) map[string][]byte {
	t.Helper()
	out := make(map[string][]byte, len(tree))
	for k, v := range tree {
		out[k] = v
	}
	lines := splitLines([]byte(diff))
	for i := 0; i < len(lines); {
		name, ok := strings.CutPrefix(lines[i], "--- a/")
		if !ok || i+1 >= len(lines) {
			t.Fatalf("diff line %d: want a --- header, got %q", i+1, lines[i])
		}
		name = strings.TrimSuffix(name, "\n")
		i += 2
		src := splitLines(tree[name])
		var dst []string
		next := 0 // next line of src to copy
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			f := strings.Fields(lines[i])
			start, oldN := hunkHeader(f[1])
			_, newN := hunkHeader(f[2])
			if oldN > 0 {
				start-- // to a 0-based index
			}
			dst = append(dst, src[next:start]...)
			next = start
			i++
			for oldN > 0 || newN > 0 {
				if i >= len(lines) {
					t.Fatalf("%s: hunk cut short", name)
				}
				l := lines[i]
				body := l[1:]
				if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ ") {
					body = strings.TrimSuffix(body, "\n")
					i++
				}
				switch l[0] {
				case ' ', '-':
					if next >= len(src) || src[next] != body {
						t.Fatalf("%s: diff line %d %q does not match the file", name, i+1, l)
					}
					if l[0] == ' ' {
						dst = append(dst, body)
						newN--
					}
					oldN--
					next++
				case '+':
					dst = append(dst, body)
					newN--
				default:
					t.Fatalf("%s: diff line %d %q is not a hunk line", name, i+1, l)
				}
				i++
			}
		}
		dst = append(dst, src[next:]...)
		out[name] = []byte(strings.Join(dst, ""))
	}
	return out
}

// hunkHeader parses "-12,3" or "+12" into start and count.
func hunkHeader(r string) (start, n int) {
	r = r[1:]
	n = 1
	if a, b, ok := strings.Cut(r, ","); ok {
		r = a
		n, _ = strconv.Atoi(b)
	}
	start, _ = strconv.Atoi(r)
	return start, n
}
