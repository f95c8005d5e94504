package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"
)

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// converter holds the state of one file's conversion.
type converter struct {
	c       *fileCtx
	edits   []edit
	reports []report
	wraps   int
}

// rewrite converts f and sets f.out when anything changed. It returns
// the places it left for a change by hand.
func (w *world) rewrite(p *pkg, f *file) []report {
	cv := &converter{c: w.ctx(p, f)}
	switched := cv.switchImports()
	if switched || w.affected(p, f) {
		cv.inspect()
	}
	if cv.wraps > 0 {
		cv.addClientGoImport()
	}
	return cv.finish(f)
}

// finish applies the edits to f, setting f.out when there are any, and
// returns the places left for a change by hand.
func (cv *converter) finish(f *file) []report {
	if len(cv.edits) == 0 {
		return cv.reports
	}
	out := applyEdits(f.src, cv.edits)
	if formatted, err := format.Source(f.src); err == nil && bytes.Equal(formatted, f.src) {
		if o, err := format.Source(out); err == nil {
			out = o
		}
	}
	f.out = out
	f.importsClientGo = bytes.Contains(out, []byte(`"`+clientGoModule+`"`)) || bytes.Contains(out, []byte(`"`+clientGoModule+`/`))
	return cv.reports
}

// affected reports whether f may hold code the switch changes though it
// imports none of the switched packages: its package imports a converted
// package, or another file of its package is switched.
func (w *world) affected(p *pkg, f *file) bool {
	for _, g := range p.files {
		for _, spec := range g.ast.Imports {
			path := importPathOf(spec)
			if _, ok := importRewrites[path]; ok || w.fanoutPkgs[path] || path == fanoutInformer || strings.HasPrefix(path, clientGoModule) {
				return true
			}
		}
	}
	return false
}

func (cv *converter) offset(pos token.Pos) int { return cv.c.f.fset.Position(pos).Offset }

func (cv *converter) report(pos token.Pos, format string, args ...any) {
	cv.reports = append(cv.reports, report{
		path: cv.c.f.path,
		line: cv.c.f.fset.Position(pos).Line,
		why:  fmt.Sprintf(format, args...),
	})
}

// switchImports rewrites the import specs; it reports whether it did.
func (cv *converter) switchImports() bool {
	cacheSpecs := 0
	switched := false
	for _, spec := range cv.c.f.ast.Imports {
		old := importPathOf(spec)
		to, ok := importRewrites[old]
		if !ok {
			continue
		}
		name := importName(spec)
		if old == toolsCache {
			cacheSpecs++
			if cacheSpecs > 1 {
				cv.report(spec.Pos(), "%s is imported a second time; the tool switched the first import only, switch this one by hand", toolsCache)
				continue
			}
		}
		if name == "." && old == toolsCache {
			cv.report(spec.Pos(), "dot import switched: fanout's informer package exports names client-go's tools/cache does not (Lister, NewLister, for example), which may now collide with this package's own; check that it builds, or name the import")
		}
		text := strconv.Quote(to)
		if spec.Name != nil || path.Base(to) != name {
			text = name + " " + text
		}
		cv.edits = append(cv.edits, edit{cv.offset(spec.Pos()), cv.offset(spec.Path.End()), text})
		switched = true
	}
	return switched
}

// addClientGoImport adds the import of contrib/clientgo that the wraps
// use, after the cache import (or the last import).
func (cv *converter) addClientGoImport() {
	name := cv.clientGoName()
	for _, spec := range cv.c.f.ast.Imports {
		if importPathOf(spec) == clientGoModule {
			return // already there
		}
	}
	spec := strconv.Quote(clientGoModule)
	if name != path.Base(clientGoModule) {
		spec = name + " " + spec
	}
	var after *ast.ImportSpec
	var decl *ast.GenDecl
	for _, d := range cv.c.f.ast.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, s := range gd.Specs {
			s := s.(*ast.ImportSpec)
			if after == nil || isCachePath(importPathOf(s)) || !isCachePath(importPathOf(after)) {
				after, decl = s, gd
			}
		}
	}
	if after == nil {
		// No import at all: add a declaration after the package clause.
		cv.edits = append(cv.edits, edit{cv.lineEnd(cv.c.f.ast.Name.End()), cv.lineEnd(cv.c.f.ast.Name.End()), "\n\nimport " + spec})
		return
	}
	at := cv.lineEnd(after.End())
	if decl.Lparen.IsValid() {
		cv.edits = append(cv.edits, edit{at, at, "\n\t" + spec})
	} else {
		at = cv.lineEnd(decl.End())
		cv.edits = append(cv.edits, edit{at, at, "\nimport " + spec})
	}
}

// lineEnd is the offset of the newline that ends the line of pos.
func (cv *converter) lineEnd(pos token.Pos) int {
	src := cv.c.f.src
	off := cv.offset(pos)
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

// clientGoName is the name under which the file refers to contrib/clientgo.
func (cv *converter) clientGoName() string {
	for _, spec := range cv.c.f.ast.Imports {
		if importPathOf(spec) == clientGoModule {
			return importName(spec)
		}
	}
	used := map[string]bool{}
	ast.Inspect(cv.c.f.ast, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	for _, spec := range cv.c.f.ast.Imports {
		used[importName(spec)] = true
	}
	for _, name := range []string{"clientgo", "fanoutclientgo"} {
		if !used[name] {
			return name
		}
	}
	for i := 2; ; i++ {
		if name := fmt.Sprintf("fanoutclientgo%d", i); !used[name] {
			return name
		}
	}
}

// applyEdits applies non-overlapping edits to src.
func applyEdits(src []byte, edits []edit) []byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	last := 0
	for _, e := range edits {
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes()
}

func importPathOf(spec *ast.ImportSpec) string {
	p, err := strconv.Unquote(spec.Path.Value)
	if err != nil {
		return ""
	}
	return p
}

// importName is the name a file uses for an import: its explicit name,
// or the last element of the path (the package name of every path the
// tool resolves).
func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	return path.Base(importPathOf(spec))
}
