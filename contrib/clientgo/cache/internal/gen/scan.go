package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// decl is one exported top-level identifier of a package as its source
// declares it: the kind ("type", "const", "var" or "func"), the node that
// declares it and the file it is in, for that file's imports.
type decl struct {
	name string
	kind string
	spec ast.Node // *ast.TypeSpec, *ast.ValueSpec or *ast.FuncDecl
	file *ast.File
}

// scanDir parses the non-test Go files of dir that the default build
// context selects and returns their exported top-level identifiers by
// name, skipping the blank identifier and methods.
func scanDir(dir string) (map[string]decl, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	ctx := build.Default
	ctx.CgoEnabled = false
	fset := token.NewFileSet()
	out := map[string]decl{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		collect(f, out)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no exported identifiers in %s", dir)
	}
	return out, nil
}

// collect adds the exported top-level identifiers of f to out.
func collect(f *ast.File, out map[string]decl) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out[d.Name.Name] = decl{name: d.Name.Name, kind: "func", spec: d, file: f}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out[s.Name.Name] = decl{name: s.Name.Name, kind: "type", spec: s, file: f}
					}
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range s.Names {
						if n.IsExported() {
							out[n.Name] = decl{name: n.Name, kind: kind, spec: s, file: f}
						}
					}
				}
			}
		}
	}
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
