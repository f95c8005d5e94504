package main

import (
	"go/ast"
)

// inspect walks the file for lister constructors to wrap and for the
// places the switch breaks.
func (cv *converter) inspect() {
	c := cv.c
	called := map[ast.Expr]bool{}
	var funcs []*ast.FuncType // enclosing functions, innermost last
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			cv.implementsClientGo(n)
			if n.Body != nil {
				funcs = append(funcs, n.Type)
				ast.Inspect(n.Body, visit)
				funcs = funcs[:len(funcs)-1]
			}
			return false
		case *ast.FuncLit:
			funcs = append(funcs, n.Type)
			ast.Inspect(n.Body, visit)
			funcs = funcs[:len(funcs)-1]
			return false
		case *ast.CallExpr:
			called[unparen(n.Fun)] = true
			cv.call(n)
		case *ast.SelectorExpr:
			if !called[n] && isCachePath(c.pkgPath(n.X)) {
				switch n.Sel.Name {
				case "NewSharedIndexInformer", "NewSharedInformer":
					cv.report(n.Pos(), "%s is used as a function value: it now has fanout's signature; where it goes to code that expects client-go's (controller-runtime's NewInformer option, for one), use clientgo.NewSharedIndexInformer from %s", n.Sel.Name, clientGoModule)
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) && n.Tok.String() == "=" {
				for i := range n.Lhs {
					cv.flow(c.kindOf(n.Lhs[i], 0), n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && len(n.Values) == len(n.Names) {
				dst := c.typeKind(n.Type, 0)
				for _, v := range n.Values {
					cv.flow(dst, v)
				}
			}
		case *ast.CompositeLit:
			cv.positional(n)
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if key, ok := kv.Key.(*ast.Ident); ok && c.isStructLit(n) {
						cv.flow(c.fieldKind(key.Name, 0), kv.Value)
					}
				}
			}
		case *ast.ReturnStmt:
			if len(funcs) > 0 {
				if res := funcs[len(funcs)-1].Results; res != nil && len(n.Results) == res.NumFields() {
					for i, r := range n.Results {
						if t := nthField(res, i); t != nil {
							cv.flow(c.typeKind(t, 0), r)
						}
					}
				}
			}
		}
		return true
	}
	ast.Inspect(c.f.ast, visit)
}

// isStructLit reports whether a composite literal is of a struct type (its
// keys are field names, not map keys).
func (c *fileCtx) isStructLit(lit *ast.CompositeLit) bool {
	switch t := lit.Type.(type) {
	case nil:
		return false
	case *ast.StructType:
		return true
	case *ast.Ident:
		ts, _ := c.w.typeSpec(c.p, t.Name)
		if ts == nil {
			return false
		}
		_, ok := ts.Type.(*ast.StructType)
		return ok
	}
	return false
}

// call handles one call: a lister constructor, a factory's InformerFor,
// or a call of a function of the package.
func (cv *converter) call(call *ast.CallExpr) {
	c := cv.c
	switch fun := callee(call).(type) {
	case *ast.SelectorExpr:
		if path := c.pkgPath(fun.X); path != "" {
			if fd, fc := c.w.exportedFunc(path, fun.Sel.Name); fd != nil {
				cv.args(fd, fc, call) // a function of another package of the module
			}
			if isListerConstructor(path, fun.Sel.Name) && len(call.Args) > 0 {
				cv.listerArg(fun.Sel.Name, call.Args[0])
			}
			if i, ok := takesClientGoIndexers(path, fun.Sel.Name); ok && i < len(call.Args) {
				cv.indexersArg(fun.Sel.Name, call.Args[i])
			}
			return
		}
		if recv := c.kindOf(fun.X, 0); recv == kindClientGoInformer || recv == kindClientGoIndexer {
			switch fun.Sel.Name {
			case "AddIndexers":
				if len(call.Args) == 1 {
					cv.indexersArg(fun.Sel.Name, call.Args[0])
				}
			case "AddEventHandlerWithOptions", "SetWatchErrorHandler", "SetWatchErrorHandlerWithContext":
				cv.report(call.Pos(), "%s of a factory informer takes client-go's types (cache.HandlerOptions, *cache.Reflector), and cache now means fanout's: take the fanout informer with clientgo.FanoutInformer from %s, or import client-go's tools/cache for this call", fun.Sel.Name, clientGoModule)
			}
		}
		if fun.Sel.Name == "InformerFor" && c.kindOf(fun.X, 0) == kindClientGoTyped {
			cv.report(call.Pos(), "InformerFor of a client-go factory takes a function that returns client-go's cache.SharedIndexInformer, and cache now means fanout's: return clientgo.Wrap(informer) from %s in it", clientGoModule)
			return
		}
		if fd, fc := c.w.funcDecl(c.p, fun.Sel.Name, true); fd != nil && c.pkgPath(fun.X) == "" {
			cv.args(fd, fc, call)
		}
	case *ast.Ident:
		if fd, fc := c.w.funcDecl(c.p, fun.Name, false); fd != nil {
			cv.args(fd, fc, call)
		}
	}
}

// args checks the arguments of a call of fd, a function of the package.
func (cv *converter) args(fd *ast.FuncDecl, fc *fileCtx, call *ast.CallExpr) {
	if call.Ellipsis.IsValid() {
		return
	}
	for i, a := range call.Args {
		if t := nthField(fd.Type.Params, i); t != nil {
			if _, variadic := t.(*ast.Ellipsis); !variadic {
				cv.flow(fc.typeKind(t, 0), a)
			}
		}
	}
}

// flow reports src going where a value of kind dst is expected, when
// src is client-go's type and dst is now fanout's.
func (cv *converter) flow(dst kind, src ast.Expr) {
	switch dst {
	case kindFanoutInformer:
		if cv.c.kindOf(src, 0) == kindClientGoInformer {
			cv.report(src.Pos(), "a factory informer (client-go's cache.SharedIndexInformer) goes where cache.SharedIndexInformer now means fanout's: declare that as client-go's type, or take the fanout informer with clientgo.FanoutInformer from %s", clientGoModule)
		}
	case kindFanoutIndexer:
		if cv.c.kindOf(src, 0) == kindClientGoIndexer {
			cv.report(src.Pos(), "a factory informer's indexer (client-go's cache.Indexer) goes where cache.Indexer now means fanout's: declare that as client-go's type")
		}
	}
}

// listerArg wraps the indexer given to a client-go lister constructor
// when it is fanout's, and reports it when the tool cannot tell.
func (cv *converter) listerArg(fn string, arg ast.Expr) {
	switch cv.c.kindOf(arg, 0) {
	case kindFanoutIndexer:
		cv.wrap(arg, "Indexer")
	case kindClientGoIndexer:
	default:
		cv.report(arg.Pos(), "cannot tell whether the indexer given to %s is fanout's (wrap it: clientgo.Indexer(...) from %s) or a factory informer's (leave it)", fn, clientGoModule)
	}
}

// indexersArg converts fanout index functions given to a client-go
// function that takes client-go's cache.Indexers.
func (cv *converter) indexersArg(fn string, arg ast.Expr) {
	if id, ok := arg.(*ast.Ident); ok && id.Name == "nil" && id.Obj == nil {
		return
	}
	if call, ok := unparen(arg).(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && cv.c.pkgPath(sel.X) == clientGoModule && sel.Sel.Name == "ToClientGoIndexers" {
			return // converted already
		}
	}
	if cv.c.kindOf(arg, 0) != kindFanoutIndexers {
		cv.report(arg.Pos(), "cannot tell whether the indexers given to %s are fanout's cache.Indexers (convert them: clientgo.ToClientGoIndexers(...) from %s) or client-go's (leave them)", fn, clientGoModule)
		return
	}
	cv.wrap(arg, "ToClientGoIndexers")
}

// wrap puts arg into a call of the contrib/clientgo function fn.
func (cv *converter) wrap(arg ast.Expr, fn string) {
	cv.edits = append(cv.edits,
		edit{cv.offset(arg.Pos()), cv.offset(arg.Pos()), cv.clientGoName() + "." + fn + "("},
		edit{cv.offset(arg.End()), cv.offset(arg.End()), ")"})
	cv.wraps++
}
