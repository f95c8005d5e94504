package main

import (
	"go/ast"
	"strings"
)

// kind is what the tool can tell about an expression's type after the
// switch, from the syntax alone: where an indexer or informer comes from.
type kind int

const (
	kindUnknown          kind = iota
	kindFanoutIndexer         // fanout's cache.Indexer
	kindFanoutInformer        // fanout's cache.SharedIndexInformer
	kindFanoutTyped           // a factory, group or typed informer generated in the module (its Informer() is fanout's)
	kindClientGoIndexer       // client-go's cache.Indexer (from a factory informer)
	kindClientGoInformer      // client-go's cache.SharedIndexInformer (a factory's Informer())
	kindClientGoTyped         // a factory, group, version or typed informer with client-go's interface types
	kindFanoutIndexers        // fanout's cache.Indexers (a map of index functions)
)

// maxDepth bounds how far the resolver follows declarations.
const maxDepth = 64

// isCachePath reports whether path is the cache package, before or after
// the switch.
func isCachePath(path string) bool { return path == toolsCache || path == fanoutInformer }

// fileCtx resolves names in one file of a package.
type fileCtx struct {
	w       *world
	p       *pkg
	f       *file
	imports map[string]string // local name -> import path, without dot and blank imports
	dots    []string          // paths imported with "."
}

func newFileCtx(w *world, p *pkg, f *file) *fileCtx {
	c := &fileCtx{w: w, p: p, f: f, imports: map[string]string{}}
	for _, spec := range f.ast.Imports {
		path := importPathOf(spec)
		switch name := importName(spec); name {
		case "_":
		case ".":
			c.dots = append(c.dots, path)
		default:
			c.imports[name] = path
		}
	}
	return c
}

// pkgPath returns the import path an identifier names, or "" when it does
// not name an import.
func (c *fileCtx) pkgPath(e ast.Expr) string {
	id, ok := e.(*ast.Ident)
	if !ok || id.Obj != nil {
		return ""
	}
	return c.imports[id.Name]
}

// dotCache reports whether the file dot-imports the cache package.
func (c *fileCtx) dotCache() bool {
	for _, p := range c.dots {
		if isCachePath(p) {
			return true
		}
	}
	return false
}

// kindOf is the kind of the value of e.
func (c *fileCtx) kindOf(e ast.Expr, depth int) kind {
	if depth > maxDepth {
		return kindUnknown
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.kindOf(e.X, depth+1)
	case *ast.CallExpr:
		return c.callKind(e, 0, depth+1)
	case *ast.Ident:
		return c.identKind(e, depth+1)
	case *ast.SelectorExpr:
		if c.pkgPath(e.X) != "" {
			return kindUnknown // a variable of another package
		}
		return c.fieldKind(e.Sel.Name, depth+1)
	case *ast.CompositeLit:
		if e.Type != nil {
			return c.typeKind(e.Type, depth+1)
		}
	}
	return kindUnknown
}

// callKind is the kind of result idx of call.
func (c *fileCtx) callKind(call *ast.CallExpr, idx, depth int) kind {
	if depth > maxDepth {
		return kindUnknown
	}
	switch fun := callee(call).(type) {
	case *ast.SelectorExpr:
		if path := c.pkgPath(fun.X); path != "" {
			return c.w.funcResultKind(path, fun.Sel.Name, idx)
		}
		return methodResultKind(c.kindOf(fun.X, depth+1), fun.Sel.Name, idx)
	case *ast.Ident:
		if fun.Obj == nil && c.dotCache() {
			if k := c.w.funcResultKind(toolsCache, fun.Name, idx); k != kindUnknown {
				return k
			}
		}
		if fd, fc := c.w.funcDecl(c.p, fun.Name, false); fd != nil && fd.Type.Results != nil {
			if t := nthField(fd.Type.Results, idx); t != nil {
				return fc.typeKind(t, depth+1)
			}
		}
	}
	return kindUnknown
}

// methodResultKind is the kind of result idx of method name called on a
// value of kind recv.
func methodResultKind(recv kind, name string, idx int) kind {
	switch name {
	case "GetIndexer":
		switch recv {
		case kindFanoutInformer:
			return kindFanoutIndexer
		case kindClientGoInformer:
			return kindClientGoIndexer
		}
	case "Informer":
		switch recv {
		case kindFanoutTyped:
			return kindFanoutInformer
		case kindClientGoTyped:
			return kindClientGoInformer
		}
	case "Lister", "GetStore", "GetController", "Start", "WaitForCacheSync", "Shutdown", "InformerFor", "AddEventHandler":
	default:
		// Group (Core, Apps), version (V1) and resource (Pods) accessors,
		// and ForResource, stay in the same world.
		if idx == 0 && (recv == kindFanoutTyped || recv == kindClientGoTyped) && isExported(name) {
			return recv
		}
	}
	return kindUnknown
}

// funcResultKind is the kind of result idx of the function path.name.
func (w *world) funcResultKind(path, name string, idx int) kind {
	switch {
	case path == clientGoModule && idx == 0:
		switch name {
		case "Indexer":
			return kindClientGoIndexer
		case "Wrap", "NewSharedIndexInformer":
			return kindClientGoInformer
		}
	case isCachePath(path):
		switch name {
		case "NewIndexer":
			return kindFanoutIndexer
		case "NewSharedIndexInformer", "NewSharedIndexInformerWithOptions":
			return kindFanoutInformer
		case "NewIndexerInformer", "NewTransformingIndexerInformer":
			if idx == 0 {
				return kindFanoutIndexer
			}
		}
	case isFactoryPath(path):
		if strings.HasPrefix(name, "New") && idx == 0 {
			return kindClientGoTyped
		}
	case isTypedInformersPath(path):
		if strings.HasPrefix(name, "New") && strings.HasSuffix(name, "Informer") && idx == 0 {
			return kindClientGoInformer
		}
	case w.fanoutPkgs[path]:
		if strings.HasPrefix(name, "New") && idx == 0 {
			if strings.HasSuffix(name, "Informer") {
				return kindFanoutInformer
			}
			if strings.Contains(name, "Factory") {
				return kindFanoutTyped
			}
		}
	}
	return kindUnknown
}

// typeKind is the kind of a value declared with type t in this file.
func (c *fileCtx) typeKind(t ast.Expr, depth int) kind {
	if depth > maxDepth {
		return kindUnknown
	}
	switch t := t.(type) {
	case *ast.ParenExpr:
		return c.typeKind(t.X, depth+1)
	case *ast.SelectorExpr:
		path := c.pkgPath(t.X)
		name := t.Sel.Name
		switch {
		case path == "":
		case isCachePath(path):
			return cacheTypeKind(name)
		case isFactoryPath(path), isTypedInformersPath(path):
			if strings.HasSuffix(name, "Factory") || strings.HasSuffix(name, "Informer") || strings.HasSuffix(name, "Interface") {
				return kindClientGoTyped
			}
		case c.w.fanoutPkgs[path]:
			if strings.HasSuffix(name, "Factory") || strings.HasSuffix(name, "Informer") || strings.HasSuffix(name, "Interface") {
				return kindFanoutTyped
			}
		}
	case *ast.Ident:
		if t.Obj == nil && c.dotCache() {
			if k := cacheTypeKind(t.Name); k != kindUnknown {
				return k
			}
		}
		if ts, fc := c.w.typeSpec(c.p, t.Name); ts != nil {
			return fc.typeKind(ts.Type, depth+1)
		}
	}
	return kindUnknown
}

func cacheTypeKind(name string) kind {
	switch name {
	case "Indexer":
		return kindFanoutIndexer
	case "SharedIndexInformer":
		return kindFanoutInformer
	case "Indexers":
		return kindFanoutIndexers
	}
	return kindUnknown
}

// identKind is the kind of a variable, from its declaration.
func (c *fileCtx) identKind(id *ast.Ident, depth int) kind {
	if id.Obj == nil {
		if vs, i, fc := c.w.pkgVar(c.p, id.Name); vs != nil {
			return fc.valueSpecKind(vs, i, depth+1)
		}
		return kindUnknown
	}
	if id.Obj.Kind != ast.Var {
		return kindUnknown
	}
	switch d := id.Obj.Decl.(type) {
	case *ast.Field:
		return c.typeKind(d.Type, depth+1)
	case *ast.ValueSpec:
		for i, n := range d.Names {
			if n.Name == id.Name {
				return c.valueSpecKind(d, i, depth+1)
			}
		}
	case *ast.AssignStmt:
		for i, l := range d.Lhs {
			if l, ok := l.(*ast.Ident); ok && l.Name == id.Name {
				return c.assignedKind(d.Lhs, d.Rhs, i, depth+1)
			}
		}
	}
	return kindUnknown
}

func (c *fileCtx) valueSpecKind(vs *ast.ValueSpec, i, depth int) kind {
	if vs.Type != nil {
		return c.typeKind(vs.Type, depth)
	}
	lhs := make([]ast.Expr, len(vs.Names))
	for j, n := range vs.Names {
		lhs[j] = n
	}
	return c.assignedKind(lhs, vs.Values, i, depth)
}

// assignedKind is the kind lhs[i] gets from rhs.
func (c *fileCtx) assignedKind(lhs, rhs []ast.Expr, i, depth int) kind {
	switch {
	case len(rhs) == len(lhs):
		return c.kindOf(rhs[i], depth)
	case len(rhs) == 1:
		if call, ok := unparen(rhs[0]).(*ast.CallExpr); ok {
			return c.callKind(call, i, depth)
		}
	}
	return kindUnknown
}

// fieldKind is the kind of the struct field name, when every struct type
// of the package that has such a field agrees.
func (c *fileCtx) fieldKind(name string, depth int) kind {
	result, found := kindUnknown, false
	for _, fd := range c.w.fields(c.p, name) {
		k := fd.ctx.typeKind(fd.typ, depth)
		if found && k != result {
			return kindUnknown
		}
		result, found = k, true
	}
	return result
}

// callee is the function a call calls, without parentheses and type
// arguments.
func callee(call *ast.CallExpr) ast.Expr {
	fun := unparen(call.Fun)
	switch g := fun.(type) {
	case *ast.IndexExpr:
		return g.X
	case *ast.IndexListExpr:
		return g.X
	}
	return fun
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// nthField returns the type of the idx-th name in a field list.
func nthField(fl *ast.FieldList, idx int) ast.Expr {
	i := 0
	for _, f := range fl.List {
		n := max(len(f.Names), 1)
		if idx < i+n {
			return f.Type
		}
		i += n
	}
	return nil
}

func isExported(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }
