package main

import (
	_ "embed"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// typeIdentical is the type-identical drop-in of k8s.io/client-go/tools/cache.
const typeIdentical = clientGoModule + "/cache"

// typeIdenticalRewrites maps each client-go import the default mode
// switches: tools/cache to the type-identical package, the factories to
// fanout's.
var typeIdenticalRewrites = map[string]string{
	toolsCache:          typeIdentical,
	clientGoInf:         importRewrites[clientGoInf],
	clientGoDynamicInf:  importRewrites[clientGoDynamicInf],
	clientGoMetadataInf: importRewrites[clientGoMetadataInf],
}

// identifierList is a copy of contrib/clientgo/cache's list of client-go's
// tools/cache identifiers per supported release (a test keeps it equal).
//
//go:embed typeid_identifiers.txt
var identifierList string

// typeIdenticalNames are the names the type-identical package exports:
// those every supported release of tools/cache has, and fanout's own
// additions.
var typeIdenticalNames = parseTypeIdenticalNames(identifierList)

// parseTypeIdenticalNames returns the identifiers of list that every
// release on its "# releases:" line has.
func parseTypeIdenticalNames(list string) map[string]bool {
	names := map[string]bool{"FanoutInformer": true, "AddEventHandlerWithFanoutOptions": true}
	releases := 0
	for _, line := range strings.Split(list, "\n") {
		if rest, ok := strings.CutPrefix(line, "# releases:"); ok {
			releases = len(strings.Fields(rest))
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 3 && !strings.HasPrefix(line, "#") && len(f)-2 == releases {
			names[f[1]] = true
		}
	}
	return names
}

// usesClientGoBeyondCache reports whether any file of pkgs imports a
// client-go package other than tools/cache, or one of fanout's client-go
// adapters: such a module mixes client-go's types with its informers, and
// gets the type-identical package.
func usesClientGoBeyondCache(pkgs []*pkg) bool {
	for _, p := range pkgs {
		for _, f := range p.files {
			for _, spec := range f.ast.Imports {
				path := importPathOf(spec)
				if path != toolsCache && (strings.HasPrefix(path, "k8s.io/client-go/") || path == clientGoModule || strings.HasPrefix(path, clientGoModule+"/")) {
					return true
				}
			}
		}
	}
	return false
}

// rewriteTypeIdentical converts f to the type-identical package and
// fanout's factories, and sets f.out when anything changed. Values keep
// client-go's types, so nothing but imports changes, except where the file
// names an identifier of tools/cache that not every supported release has:
// such selectors keep client-go's package, imported a second time.
func (w *world) rewriteTypeIdentical(p *pkg, f *file) []report {
	cv := &converter{c: w.ctx(p, f)}
	for _, spec := range f.ast.Imports {
		old := importPathOf(spec)
		to, ok := typeIdenticalRewrites[old]
		if !ok {
			continue
		}
		name := importName(spec)
		if old == toolsCache {
			switch name {
			case ".":
				cv.report(spec.Pos(), "dot import of %s left on client-go (its informer constructors stay client-go's): name the import and run the tool again", toolsCache)
				continue
			case "_":
			default:
				if !cv.splitCacheSelectors(spec, name) {
					continue
				}
			}
		}
		cv.switchImport(spec, name, to)
	}
	return cv.finish(f)
}

// switchImport replaces the path of spec with to, keeping the file's name.
func (cv *converter) switchImport(spec *ast.ImportSpec, name, to string) {
	text := strconv.Quote(to)
	if spec.Name != nil || importBase(to) != name {
		text = name + " " + text
	}
	cv.edits = append(cv.edits, edit{cv.offset(spec.Pos()), cv.offset(spec.Path.End()), text})
}

// importBase is the package name of a path the tool imports.
func importBase(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// splitCacheSelectors prepares the switch of a named tools/cache import:
// selectors of identifiers the type-identical package lacks are moved to
// client-go's package under a new name, imported after spec. It returns
// false, and changes nothing, when the file uses none of the package's
// identifiers (nothing to switch: client-go's types are the same).
func (cv *converter) splitCacheSelectors(spec *ast.ImportSpec, name string) bool {
	var common int
	var others []*ast.Ident
	ast.Inspect(cv.c.f.ast, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
			if typeIdenticalNames[sel.Sel.Name] {
				common++
			} else {
				others = append(others, x)
			}
		}
		return true
	})
	if common == 0 {
		return false
	}
	if len(others) == 0 {
		return true
	}
	cg := cv.freeName("clientgocache")
	for _, x := range others {
		cv.edits = append(cv.edits, edit{cv.offset(x.Pos()), cv.offset(x.End()), cg})
	}
	line := cg + " " + strconv.Quote(toolsCache)
	decl := cv.importDecl(spec)
	if decl != nil && decl.Lparen.IsValid() {
		at := cv.lineEnd(spec.End())
		cv.edits = append(cv.edits, edit{at, at, "\n\t" + line})
	} else {
		at := cv.lineEnd(spec.End())
		cv.edits = append(cv.edits, edit{at, at, "\nimport " + line})
	}
	return true
}

// importDecl returns the import declaration that holds spec.
func (cv *converter) importDecl(spec *ast.ImportSpec) *ast.GenDecl {
	for _, d := range cv.c.f.ast.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			for _, s := range gd.Specs {
				if s == spec {
					return gd
				}
			}
		}
	}
	return nil
}

// freeName returns base, or base with a number, that the file does not use
// as an identifier or import name.
func (cv *converter) freeName(base string) string {
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
	name := base
	for i := 2; used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}
