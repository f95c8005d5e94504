package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// goBlockRe is a fenced Go block with the line before it (the marker,
	// if any).
	goBlockRe = regexp.MustCompile("(?ms)(?:^([^\n]*)\n)?^```go\n(.*?)^```")
	// markerRe names the Example that compiles the block that follows:
	// <!-- example: informer/example_switch_test.go ExampleNewSharedIndexInformer_switch -->
	markerRe = regexp.MustCompile(`^<!-- example: (\S+_test\.go) (Example\w*) -->$`)
	spaceRe  = regexp.MustCompile(`\s+`)
)

// normalize makes a line of Go comparable across gofmt's alignment: runs of
// white space become one space.
func normalize(line string) string {
	return spaceRe.ReplaceAllString(strings.TrimSpace(line), " ")
}

// exampleSource returns the lines of the import block and of the body of
// function name in a Go test file, normalized, or an error.
func exampleSource(file, name string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	var out []string
	inImport := false
	for _, l := range lines {
		switch {
		case l == "import (":
			inImport = true
			out = append(out, l)
		case inImport && l == ")":
			inImport = false
			out = append(out, l)
		case inImport:
			out = append(out, normalize(l))
		}
	}
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "func "+name+"() {") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no func %s() in %s", name, file)
	}
	for _, l := range lines[start+1:] {
		if l == "}" {
			return out, nil
		}
		out = append(out, normalize(l))
	}
	return nil, fmt.Errorf("func %s in %s has no closing brace at column 1", name, file)
}

// missingLines returns the lines of block that do not appear, in order, in
// src: a block may leave out lines of its Example (error checks, the
// Example's fixtures), not change or reorder them.
func missingLines(block string, src []string) []string {
	var missing []string
	i := 0
	for _, l := range strings.Split(block, "\n") {
		want := normalize(l)
		if want == "" || want == "..." {
			continue
		}
		j := i
		for j < len(src) && src[j] != want {
			j++
		}
		if j == len(src) {
			missing = append(missing, l)
			continue
		}
		i = j + 1
	}
	return missing
}

// TestGoBlocksAreCompiledByExamples checks that every ```go block of the
// landing page and the guides is preceded by a marker naming the Example
// that compiles it, and that each of the block's lines is a line of that
// Example's import block or body, in the same order. A guide whose code
// drifts from the API then fails here, because its Example no longer
// compiles or no longer matches.
func TestGoBlocksAreCompiledByExamples(t *testing.T) {
	files := []string{filepath.Join(repoRoot, "README.md")}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goBlockRe.FindAllStringSubmatch(string(b), -1) {
			first, _, _ := strings.Cut(m[2], "\n")
			mk := markerRe.FindStringSubmatch(m[1])
			if mk == nil {
				t.Errorf("%s: the Go block starting %q has no marker line before it: "+
					"<!-- example: <dir>/<file>_test.go Example<Name> -->, naming the Example whose body holds the block's lines", f, first)
				continue
			}
			src, err := exampleSource(filepath.Join(repoRoot, mk[1]), mk[2])
			if err != nil {
				t.Errorf("%s: the Go block starting %q: %v", f, first, err)
				continue
			}
			for _, l := range missingLines(m[2], src) {
				t.Errorf("%s: line %q of the Go block starting %q is not, in order, in %s of %s", f, l, first, mk[2], mk[1])
			}
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("checked %d Go blocks, want the guides' blocks (at least 5)", checked)
	}
}

// TestMissingLines checks the matching rule: gofmt's alignment does not
// matter; a changed, reordered or extra line does.
func TestMissingLines(t *testing.T) {
	src := []string{"a := 1", "b := f(a) // why", "if err != nil {", "}", "go run(ctx)"}
	for _, tc := range []struct {
		block string
		want  int
	}{
		{"a := 1\nb   := f(a)   // why\ngo run(ctx)", 0},
		{"a := 1\n\n...\ngo run(ctx)", 0},
		{"a := 2", 1},
		{"go run(ctx)\na := 1", 1},
		{"a := 1\nc := 3", 1},
	} {
		if got := missingLines(tc.block, src); len(got) != tc.want {
			t.Errorf("missingLines(%q) = %q, want %d missing", tc.block, got, tc.want)
		}
	}
}

var (
	// goPathRe is a backquoted Go file path in prose, with the backquoted
	// names that follow it after a colon ("`x.go`: `f` → `T.m`").
	goPathRe = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.go)`(?:: ((?:`[^`]+`(?:, | / | → | or |/)?)+))?")
	quotedRe = regexp.MustCompile("`([^`]+)`")
)

// TestNamedGoFilesAndFunctionsExist checks that every Go file the landing
// page and the guides name exists, and that each function named after it
// ("`informer/controller.go`: `processLoop` → `popFunc`") is declared,
// is a field, or is called in that file: the architecture map then cannot
// point at a file or function that was moved or renamed.
func TestNamedGoFilesAndFunctionsExist(t *testing.T) {
	files := []string{filepath.Join(repoRoot, "README.md")}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goPathRe.FindAllStringSubmatch(string(b), -1) {
			path := filepath.Join(repoRoot, m[1])
			if _, err := os.Stat(path); err != nil {
				if _, err2 := os.Stat(filepath.Join(filepath.Dir(f), m[1])); err2 != nil {
					t.Errorf("%s: names %s, which does not exist", f, m[1])
				}
				continue
			}
			checked++
			for _, q := range quotedRe.FindAllStringSubmatch(m[2], -1) {
				name := q[1]
				if strings.HasSuffix(name, ".go") {
					path = filepath.Join(repoRoot, name)
					continue
				}
				src, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%s: names %s: %v", f, name, err)
					continue
				}
				name, _, _ = strings.Cut(name, "(")
				name = name[strings.LastIndex(name, ".")+1:]
				n := regexp.QuoteMeta(name)
				re := regexp.MustCompile(`func (\([^)]*\) )?` + n + `[\[(]|\n\t+` + n + `:|\.` + n + `\(`)
				if !re.Match(src) {
					t.Errorf("%s: names %s in %s, which neither declares, calls nor sets it", f, q[1], path)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d file and function names, want the architecture map's (at least 20)", checked)
	}
}
