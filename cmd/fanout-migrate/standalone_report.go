package main

import (
	"go/ast"
)

// exportedFunc returns the exported function name of the module's package
// at path, when the tool converts that package, and its file's context.
func (w *world) exportedFunc(path, name string) (*ast.FuncDecl, *fileCtx) {
	p, ok := w.byPath[path]
	if !ok || !isExported(name) {
		return nil, nil
	}
	return w.funcDecl(p, name, false)
}

// positional checks the elements of a struct literal written without
// field names against the fields they fill.
func (cv *converter) positional(lit *ast.CompositeLit) {
	if len(lit.Elts) == 0 {
		return
	}
	if _, keyed := lit.Elts[0].(*ast.KeyValueExpr); keyed {
		return
	}
	fields, fc := cv.c.structFields(lit.Type)
	if fields == nil {
		return
	}
	for i, el := range lit.Elts {
		if t := nthField(fields, i); t != nil {
			cv.flow(fc.typeKind(t, 0), el)
		}
	}
}

// structFields returns the fields of a struct literal's type (a struct
// type of the package, or a struct type literal) and the context of the
// file that declares them.
func (c *fileCtx) structFields(t ast.Expr) (*ast.FieldList, *fileCtx) {
	switch t := t.(type) {
	case *ast.StructType:
		return t.Fields, c
	case *ast.Ident:
		ts, fc := c.w.typeSpec(c.p, t.Name)
		if ts == nil {
			return nil, nil
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			return st.Fields, fc
		}
	}
	return nil, nil
}

// clientGoInterfaceMethods are the methods of client-go's informer, indexer
// and controller interfaces whose signatures name tools/cache types: a
// type of the module with one of them, in tools/cache's types, implements
// client-go's interface, and after the switch no longer does.
var clientGoInterfaceMethods = map[string]bool{
	"AddEventHandler": true, "AddEventHandlerWithResyncPeriod": true, "AddEventHandlerWithOptions": true,
	"RemoveEventHandler": true, "GetStore": true, "GetIndexer": true, "GetController": true,
	"SetWatchErrorHandler": true, "SetWatchErrorHandlerWithContext": true, "SetTransform": true,
	"AddIndexers": true, "GetIndexers": true, "HasSyncedChecker": true,
}

// implementsClientGo reports a method that implements one of client-go's
// interfaces in tools/cache's types.
func (cv *converter) implementsClientGo(fd *ast.FuncDecl) {
	if fd.Recv == nil || !clientGoInterfaceMethods[fd.Name.Name] || !cv.namesCache(fd.Type) {
		return
	}
	cv.report(fd.Pos(), "method %s implements client-go's tools/cache interface in cache's types; after the switch they are fanout's and the type no longer fits client-go's interface: keep this file on k8s.io/client-go/tools/cache, or run the tool without -standalone (the type-identical package keeps client-go's types)", fd.Name.Name)
}

// namesCache reports whether a signature names a type of the cache package.
func (cv *converter) namesCache(ft *ast.FuncType) bool {
	found := false
	ast.Inspect(ft, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && isCachePath(cv.c.pkgPath(sel.X)) {
			found = true
		}
		return !found
	})
	return found
}
