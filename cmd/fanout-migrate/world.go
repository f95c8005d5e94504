package main

import (
	"go/ast"
	"go/token"
)

// world is what the tool knows across the packages it converts.
type world struct {
	mod module
	// fanoutPkgs holds the import paths of converted packages that
	// import the cache package: the informers they declare are fanout's
	// after the switch (a generated informers tree, for example).
	fanoutPkgs map[string]bool
	index      map[*pkg]*pkgIndex
	byPath     map[string]*pkg // the converted packages by import path
	ctxs       map[*file]*fileCtx
}

// pkgIndex holds the package-level declarations of one package.
type pkgIndex struct {
	funcs  map[string][]declIn[*ast.FuncDecl]
	types  map[string]declIn[*ast.TypeSpec]
	vars   map[string]varIn
	fields map[string][]fieldIn
}

type declIn[T any] struct {
	decl T
	ctx  *fileCtx
}

type varIn struct {
	spec *ast.ValueSpec
	idx  int
	ctx  *fileCtx
}

type fieldIn struct {
	typ ast.Expr
	ctx *fileCtx
}

func newWorld(mod module, pkgs []*pkg) *world {
	w := &world{mod: mod, fanoutPkgs: map[string]bool{}, index: map[*pkg]*pkgIndex{}, ctxs: map[*file]*fileCtx{}, byPath: map[string]*pkg{}}
	for _, p := range pkgs {
		w.byPath[mod.importPath(p.dir)] = p
		for _, f := range p.files {
			if importsCache(f.ast) {
				w.fanoutPkgs[mod.importPath(p.dir)] = true
				break
			}
		}
	}
	return w
}

func importsCache(f *ast.File) bool {
	for _, spec := range f.Imports {
		if isCachePath(importPathOf(spec)) {
			return true
		}
	}
	return false
}

func (w *world) ctx(p *pkg, f *file) *fileCtx {
	c, ok := w.ctxs[f]
	if !ok {
		c = newFileCtx(w, p, f)
		w.ctxs[f] = c
	}
	return c
}

// indexOf builds the index of p on first use.
func (w *world) indexOf(p *pkg) *pkgIndex {
	if ix, ok := w.index[p]; ok {
		return ix
	}
	ix := &pkgIndex{
		funcs:  map[string][]declIn[*ast.FuncDecl]{},
		types:  map[string]declIn[*ast.TypeSpec]{},
		vars:   map[string]varIn{},
		fields: map[string][]fieldIn{},
	}
	w.index[p] = ix
	for _, f := range p.files {
		c := w.ctx(p, f)
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				ix.funcs[d.Name.Name] = append(ix.funcs[d.Name.Name], declIn[*ast.FuncDecl]{d, c})
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						ix.types[s.Name.Name] = declIn[*ast.TypeSpec]{s, c}
					case *ast.ValueSpec:
						if d.Tok == token.VAR {
							for i, n := range s.Names {
								ix.vars[n.Name] = varIn{s, i, c}
							}
						}
					}
				}
			}
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					ix.fields[n.Name] = append(ix.fields[n.Name], fieldIn{fl.Type, c})
				}
			}
			return true
		})
	}
	return ix
}

// funcDecl returns the only function (method when method is true) of p
// named name, and the context of its file.
func (w *world) funcDecl(p *pkg, name string, method bool) (*ast.FuncDecl, *fileCtx) {
	var found *declIn[*ast.FuncDecl]
	for _, d := range w.indexOf(p).funcs[name] {
		if (d.decl.Recv != nil) != method {
			continue
		}
		if found != nil {
			return nil, nil // ambiguous
		}
		found = &d
	}
	if found == nil {
		return nil, nil
	}
	return found.decl, found.ctx
}

func (w *world) typeSpec(p *pkg, name string) (*ast.TypeSpec, *fileCtx) {
	d, ok := w.indexOf(p).types[name]
	if !ok {
		return nil, nil
	}
	return d.decl, d.ctx
}

func (w *world) pkgVar(p *pkg, name string) (*ast.ValueSpec, int, *fileCtx) {
	v, ok := w.indexOf(p).vars[name]
	if !ok {
		return nil, 0, nil
	}
	return v.spec, v.idx, v.ctx
}

func (w *world) fields(p *pkg, name string) []fieldIn { return w.indexOf(p).fields[name] }
