package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// module is the Go module the tool runs in.
type module struct {
	dir  string // directory holding go.mod
	path string // module path
}

// findModule finds the go.mod at or above dir.
func findModule(dir string) (module, error) {
	for d := dir; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			p := modulePath(data)
			if p == "" {
				return module{}, fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
			}
			return module{dir: d, path: p}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return module{}, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return module{}, fmt.Errorf("no go.mod in %s or above: run the tool in a Go module", dir)
		}
		d = parent
	}
}

// modulePath returns the path on go.mod's module line.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

// expandPatterns turns package patterns relative to dir ("./...", "./pkg",
// "pkg/...", ".") into a sorted list of directories.
func expandPatterns(dir string, patterns []string) ([]string, error) {
	seen := map[string]bool{}
	for _, pat := range patterns {
		recursive := false
		switch {
		case pat == "...":
			pat, recursive = ".", true
		case strings.HasSuffix(pat, "/..."):
			pat, recursive = strings.TrimSuffix(pat, "/..."), true
		}
		if strings.Contains(pat, "...") {
			return nil, fmt.Errorf("pattern %q: only a trailing /... is supported", pat)
		}
		root := pat
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, filepath.FromSlash(pat))
		}
		info, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pat, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("pattern %q: not a directory", pat)
		}
		if !recursive {
			seen[root] = true
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if p != root {
				name := d.Name()
				if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module
				}
			}
			seen[p] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, nil
}

// pkg is the Go files of one directory.
type pkg struct {
	dir   string
	files []*file
}

// file is one parsed source file and, once rewritten, its new content.
type file struct {
	path string
	mode fs.FileMode
	src  []byte
	fset *token.FileSet
	ast  *ast.File

	out             []byte // new content; nil when unchanged
	importsClientGo bool   // out imports a package of contrib/clientgo
}

// loadPackage parses every .go file in dir; nil when there is none.
func loadPackage(dir string) (*pkg, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &pkg{dir: dir}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, &file{path: name, mode: info.Mode().Perm(), src: src, fset: fset, ast: f})
	}
	if len(p.files) == 0 {
		return nil, nil
	}
	return p, nil
}

// importPath is the import path of the package in dir, inside mod.
func (m module) importPath(dir string) string {
	rel, err := filepath.Rel(m.dir, dir)
	if err != nil || rel == "." {
		return m.path
	}
	return path.Join(m.path, filepath.ToSlash(rel))
}
