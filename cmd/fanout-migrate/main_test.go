package main

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/migrate")

// TestMigrateGolden runs the tool on every testdata/migrate/<case>/in
// module (with the flags in the case's args.txt, if any), writing and with
// -diff, and compares the tree, standard output
// and the report with the case's golden files byte for byte: out/ (the
// converted tree), stdout.txt, diff.txt and report.txt (standard error;
// a non-empty report means exit status 1). It also applies diff.txt to
// in/ and checks that it gives out/.
func TestMigrateGolden(t *testing.T) {
	cases, err := os.ReadDir(filepath.Join("testdata", "migrate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			base := filepath.Join("testdata", "migrate", c.Name())
			in := readTree(t, filepath.Join(base, "in"))

			dir := t.TempDir()
			writeTree(t, dir, in)
			var stdout, stderr bytes.Buffer
			code := run(caseArgs(t, base, "./..."), dir, &stdout, &stderr)
			got := readTree(t, dir)

			diffDir := t.TempDir()
			writeTree(t, diffDir, in)
			var diffOut, diffErr bytes.Buffer
			diffCode := run(caseArgs(t, base, "-diff", "./..."), diffDir, &diffOut, &diffErr)

			if *update {
				os.RemoveAll(filepath.Join(base, "out"))
				writeTree(t, filepath.Join(base, "out"), got)
				writeFile(t, filepath.Join(base, "stdout.txt"), stdout.Bytes())
				writeFile(t, filepath.Join(base, "diff.txt"), diffOut.Bytes())
				writeFile(t, filepath.Join(base, "report.txt"), stderr.Bytes())
				return
			}
			wantReport := readFile(t, filepath.Join(base, "report.txt"))
			wantCode := exitOK
			if len(wantReport) > 0 {
				wantCode = exitReported
			}

			compareTrees(t, "written tree", got, readTree(t, filepath.Join(base, "out")))
			compareText(t, "stdout", stdout.String(), string(readFile(t, filepath.Join(base, "stdout.txt"))))
			compareText(t, "report", stderr.String(), string(wantReport))
			if code != wantCode {
				t.Errorf("exit status %d, want %d", code, wantCode)
			}

			compareTrees(t, "tree after -diff", readTree(t, diffDir), in)
			wantDiff := readFile(t, filepath.Join(base, "diff.txt"))
			compareText(t, "-diff stdout", diffOut.String(), string(wantDiff))
			compareText(t, "-diff report", diffErr.String(), string(wantReport))
			if diffCode != wantCode {
				t.Errorf("-diff: exit status %d, want %d", diffCode, wantCode)
			}
			compareTrees(t, "in/ patched with diff.txt", applyDiff(t, in, string(wantDiff)), readTree(t, filepath.Join(base, "out")))
		})
	}
}

// TestMigrateIdempotent checks that a second run over converted trees
// changes nothing and reports no place the first run did not (line
// numbers aside: an added import moves them). It may report fewer: a
// warning about a switched import is not repeated.
func TestMigrateIdempotent(t *testing.T) {
	cases, err := os.ReadDir(filepath.Join("testdata", "migrate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			base := filepath.Join("testdata", "migrate", c.Name())
			out := readTree(t, filepath.Join(base, "out"))
			dir := t.TempDir()
			writeTree(t, dir, out)
			var stdout, stderr bytes.Buffer
			run(caseArgs(t, base, "./..."), dir, &stdout, &stderr)
			compareTrees(t, "second run", readTree(t, dir), out)
			if stdout.Len() != 0 {
				t.Errorf("second run printed %q, want nothing", stdout.String())
			}
			first := withoutLines(string(readFile(t, filepath.Join(base, "report.txt"))))
			for _, l := range strings.SplitAfter(withoutLines(stderr.String()), "\n") {
				if l != "" && !strings.HasPrefix(l, "fanout-migrate:") && !strings.Contains(first, l) {
					t.Errorf("second run reports a new place: %s", l)
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no module", []string{"./..."}, "no go.mod"},
		{"bad flag", []string{"-nope"}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, dir, &stdout, &stderr); code != exitError {
				t.Errorf("exit status %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tc.want)
			}
		})
	}
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing dir", []string{"./nope/..."}, `pattern "./nope"`},
		{"inner wildcard", []string{"./a/.../b"}, "only a trailing /..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, dir, &stdout, &stderr); code != exitError {
				t.Errorf("exit status %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestPatternsSkip checks that ./... skips vendor, testdata, hidden
// directories and nested modules, and that a plain directory pattern is
// not recursive.
func TestPatternsSkip(t *testing.T) {
	dir := t.TempDir()
	src := []byte("package p\n\nimport _ \"k8s.io/client-go/tools/cache\"\n")
	for _, f := range []string{"go.mod", "a/a.go", "a/b/b.go", "vendor/v/v.go", "testdata/t.go", ".hidden/h.go", "_skip/s.go", "nested/go.mod", "nested/n.go"} {
		content := src
		if strings.HasSuffix(f, "go.mod") {
			content = []byte("module example.com/m\n")
		}
		writeFile(t, filepath.Join(dir, f), content)
	}
	for _, tc := range []struct {
		pattern string
		want    string
	}{
		{"./...", "rewrote a/a.go\nrewrote a/b/b.go\n"},
		{"./a", "rewrote a/a.go\n"},
		{"a/...", "rewrote a/a.go\nrewrote a/b/b.go\n"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			run([]string{"-diff", tc.pattern}, dir, &stdout, &stderr)
			var got strings.Builder
			for _, l := range strings.Split(stdout.String(), "\n") {
				if name, ok := strings.CutPrefix(l, "+++ b/"); ok {
					got.WriteString("rewrote " + name + "\n")
				}
			}
			if got.String() != tc.want {
				t.Errorf("files changed:\n%s\nwant:\n%s", got.String(), tc.want)
			}
		})
	}
}

// caseArgs returns the flags of the golden case in base (its args.txt,
// one or more flags on a line), followed by args.
func caseArgs(t *testing.T, base string, args ...string) []string {
	t.Helper()
	return append(strings.Fields(string(readFile(t, filepath.Join(base, "args.txt")))), args...)
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	tree := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		tree[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func writeTree(t *testing.T, root string, tree map[string][]byte) {
	t.Helper()
	for name, data := range tree {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), data)
	}
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

func compareTrees(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: %s missing", what, name)
			continue
		}
		compareText(t, what+": "+name, string(g), string(w))
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: unexpected file %s", what, name)
		}
	}
}

func compareText(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s differs from golden (-want +got):\n%s", what, unifiedDiff("want", "got", []byte(want), []byte(got)))
	}
}

// withoutLines drops the line numbers of "file:line: why" report lines.
func withoutLines(report string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(report, "\n") {
		if file, rest, ok := strings.Cut(l, ":"); ok {
			if _, why, ok := strings.Cut(rest, ": "); ok && !strings.HasPrefix(l, "fanout-migrate:") {
				l = file + ": " + why
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
