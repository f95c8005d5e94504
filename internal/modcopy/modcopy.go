// Package modcopy copies a module from the Go module proxy into a
// temporary directory, switches it to fanout (imports, edits, require and
// replace directives) and runs the go command in it: the harness of the
// tests that run other projects' code on fanout.
package modcopy

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Copy is a writable copy of a module downloaded from the module proxy,
// to be switched to fanout and tested. Its methods fail the test on error.
type Copy struct {
	t testing.TB
	// Path and Version name the module copied.
	Path, Version string
	// Dir is the copy's root.
	Dir string
}

// FromProxy downloads the first of versions of module that the
// module proxy serves and copies it to a temporary directory. It skips
// the test, saying why, when the proxy serves none of them (for example
// when it cannot be reached).
func FromProxy(t testing.TB, module string, versions ...string) *Copy {
	t.Helper()
	var reasons []string
	for _, v := range versions {
		out, err := exec.Command("go", "mod", "download", "-json", module+"@"+v).Output()
		var info struct{ Dir, Error string }
		_ = json.Unmarshal(out, &info)
		if err != nil || info.Dir == "" {
			reasons = append(reasons, strings.TrimSpace(v+": "+info.Error+" "+errString(err)))
			continue
		}
		if v != versions[0] {
			t.Logf("%s@%s is not served (%s); using %s", module, versions[0], reasons[0], v)
		}
		m := &Copy{t: t, Path: module, Version: v, Dir: t.TempDir()}
		m.copyTree(info.Dir)
		return m
	}
	t.Skipf("the module proxy serves none of %s@%v (is it reachable?): %s", module, versions, strings.Join(reasons, "; "))
	return nil
}

// New returns an empty copy, a temporary directory, for a module the test
// writes itself with WriteFile.
func New(t testing.TB) *Copy {
	return &Copy{t: t, Dir: t.TempDir()}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// copyTree copies src into the copy, making files writable (the module
// cache's are not).
func (m *Copy) copyTree(src string) {
	m.t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(m.Dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		m.t.Fatal(err)
	}
}

// ReplaceImport changes every import of oldPath in the copy's Go files to
// newPath, keeping each import's name (an unnamed import gets the last
// element of oldPath as its name when that differs from newPath's). It
// returns the files changed.
func (m *Copy) ReplaceImport(oldPath, newPath string) []string {
	m.t.Helper()
	var changed []string
	err := filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		hit := false
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == oldPath {
				imp.Path.Value = strconv.Quote(newPath)
				if imp.Name == nil && path.Base(oldPath) != path.Base(newPath) {
					imp.Name = ast.NewIdent(path.Base(oldPath))
				}
				hit = true
			}
		}
		if !hit {
			return nil
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, f); err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.Dir, p)
		changed = append(changed, rel)
		return os.WriteFile(p, buf.Bytes(), 0o644)
	})
	if err != nil {
		m.t.Fatal(err)
	}
	return changed
}

// EditFile replaces the one occurrence of old in the copy's file rel with
// new; it fails the test unless old occurs exactly once.
func (m *Copy) EditFile(rel, old, new string) {
	m.t.Helper()
	p := filepath.Join(m.Dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		m.t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		m.t.Fatalf("%s: %q occurs %d times, want 1", rel, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// WriteFile writes a new file into the copy, creating its directory.
func (m *Copy) WriteFile(rel, content string) {
	m.t.Helper()
	p := filepath.Join(m.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// UseFanout makes the copy build against the root and contrib/clientgo
// modules of the fanout repository at root (require and replace
// directives), then tidies its go.mod.
func (m *Copy) UseFanout(root string) {
	m.t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		m.t.Fatal(err)
	}
	m.Go("mod", "edit",
		"-require=github.com/kfanout/fanout/contrib/clientgo@v0.0.0",
		"-replace=github.com/kfanout/fanout="+root,
		"-replace=github.com/kfanout/fanout/contrib/clientgo="+filepath.Join(root, "contrib", "clientgo"))
	m.Go("mod", "tidy")
}

// Go runs the go command in the copy, outside any workspace, and
// returns its combined output; it fails the test if the command fails.
func (m *Copy) Go(args ...string) string {
	m.t.Helper()
	out, err := m.TryGo(args...)
	if err != nil {
		m.t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGo is Go returning the error instead of failing.
func (m *Copy) TryGo(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = m.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
