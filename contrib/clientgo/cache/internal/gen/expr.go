package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// qualifier prints the type expressions of one client-go declaration as
// they must be written outside client-go's package: the package's own
// exported names get the "cache." prefix, imported names keep their
// package (recorded in imports), type parameters and predeclared names stay
// as they are.
type qualifier struct {
	exported   map[string]decl   // client-go's exported identifiers
	file       *ast.File         // the file the declaration is in
	typeParams map[string]bool   // type parameters in scope
	imports    map[string]string // import path → local name, shared by the output file
}

// importPath returns the path the file imports under local name.
func (q qualifier) importPath(name string) (string, bool) {
	for _, spec := range q.file.Imports {
		path := strings.Trim(spec.Path.Value, `"`)
		local := defaultName(path)
		if spec.Name != nil {
			local = spec.Name.Name
		}
		if local == name {
			return path, true
		}
	}
	return "", false
}

// defaultName guesses the package name of an import path without an
// explicit name: its last element, without a major version suffix.
func defaultName(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	if i := strings.IndexByte(last, '.'); i >= 0 {
		last = last[:i]
	}
	return strings.ReplaceAll(last, "-", "_")
}

// expr prints e, qualified; it fails on a name it cannot write outside
// client-go (an unexported one) and on forms signatures do not use.
func (q qualifier) expr(e ast.Expr) (string, error) {
	switch e := e.(type) {
	case *ast.Ident:
		switch {
		case q.typeParams[e.Name]:
			return e.Name, nil
		case q.exported[e.Name].name != "":
			return "cache." + e.Name, nil
		case types.Universe.Lookup(e.Name) != nil:
			return e.Name, nil
		}
		return "", fmt.Errorf("unexported name %s", e.Name)
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("selector on %T", e.X)
		}
		path, ok := q.importPath(pkg.Name)
		if !ok {
			return "", fmt.Errorf("unknown package %s", pkg.Name)
		}
		return q.use(path, pkg.Name) + "." + e.Sel.Name, nil
	case *ast.StarExpr:
		x, err := q.expr(e.X)
		return "*" + x, err
	case *ast.ParenExpr:
		x, err := q.expr(e.X)
		return "(" + x + ")", err
	case *ast.UnaryExpr:
		x, err := q.expr(e.X)
		return e.Op.String() + x, err
	case *ast.BinaryExpr:
		x, err := q.expr(e.X)
		if err != nil {
			return "", err
		}
		y, err := q.expr(e.Y)
		return x + " " + e.Op.String() + " " + y, err
	case *ast.Ellipsis:
		x, err := q.expr(e.Elt)
		return "..." + x, err
	case *ast.ArrayType:
		x, err := q.expr(e.Elt)
		if err != nil {
			return "", err
		}
		if e.Len != nil {
			return "", fmt.Errorf("array type")
		}
		return "[]" + x, nil
	case *ast.MapType:
		k, err := q.expr(e.Key)
		if err != nil {
			return "", err
		}
		v, err := q.expr(e.Value)
		return "map[" + k + "]" + v, err
	case *ast.ChanType:
		x, err := q.expr(e.Value)
		switch e.Dir {
		case ast.SEND:
			return "chan<- " + x, err
		case ast.RECV:
			return "<-chan " + x, err
		}
		return "chan " + x, err
	case *ast.InterfaceType:
		if len(e.Methods.List) == 0 {
			return "any", nil
		}
		return "", fmt.Errorf("interface literal")
	case *ast.StructType:
		if len(e.Fields.List) == 0 {
			return "struct{}", nil
		}
		return "", fmt.Errorf("struct literal")
	case *ast.FuncType:
		params, err := q.fields(e.Params, false)
		if err != nil {
			return "", err
		}
		results, err := q.fields(e.Results, false)
		if err != nil {
			return "", err
		}
		return "func(" + params + ")" + wrapResults(results, e.Results), nil
	case *ast.IndexExpr:
		x, err := q.expr(e.X)
		if err != nil {
			return "", err
		}
		i, err := q.expr(e.Index)
		return x + "[" + i + "]", err
	case *ast.IndexListExpr:
		x, err := q.expr(e.X)
		if err != nil {
			return "", err
		}
		args := make([]string, len(e.Indices))
		for i, ix := range e.Indices {
			if args[i], err = q.expr(ix); err != nil {
				return "", err
			}
		}
		return x + "[" + strings.Join(args, ", ") + "]", nil
	}
	return "", fmt.Errorf("expression %T", e)
}

// fields prints a parameter or result list; withNames keeps the names.
func (q qualifier) fields(fl *ast.FieldList, withNames bool) (string, error) {
	if fl == nil {
		return "", nil
	}
	var parts []string
	for _, f := range fl.List {
		t, err := q.expr(f.Type)
		if err != nil {
			return "", err
		}
		if !withNames || len(f.Names) == 0 {
			for range max(1, len(f.Names)) {
				parts = append(parts, t)
			}
			continue
		}
		for _, n := range f.Names {
			parts = append(parts, n.Name+" "+t)
		}
	}
	return strings.Join(parts, ", "), nil
}

// wrapResults puts a result list in parentheses when it needs them.
func wrapResults(results string, fl *ast.FieldList) string {
	switch {
	case results == "":
		return ""
	case fl.NumFields() == 1:
		return " " + results
	}
	return " (" + results + ")"
}

// use records that the output imports path, under the file's local name
// where it is free, and returns the name to write.
func (q qualifier) use(path, local string) string {
	if name, ok := q.imports[path]; ok {
		return name
	}
	taken := map[string]bool{"cache": true}
	for _, n := range q.imports {
		taken[n] = true
	}
	name := local
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s%d", local, i)
	}
	q.imports[path] = name
	return name
}

// typeParams prints a type parameter list and the argument list that
// instantiates it, and returns the names it brings into scope.
func (q qualifier) typeParamList(fl *ast.FieldList) (params, args string, names map[string]bool, err error) {
	names = map[string]bool{}
	for k, v := range q.typeParams {
		names[k] = v
	}
	if fl == nil {
		return "", "", names, nil
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			names[n.Name] = true
		}
	}
	inner := q
	inner.typeParams = names
	var ps, as []string
	for _, f := range fl.List {
		c, err := inner.expr(f.Type)
		if err != nil {
			return "", "", nil, err
		}
		var ns []string
		for _, n := range f.Names {
			ns = append(ns, n.Name)
			as = append(as, n.Name)
		}
		ps = append(ps, strings.Join(ns, ", ")+" "+c)
	}
	return "[" + strings.Join(ps, ", ") + "]", "[" + strings.Join(as, ", ") + "]", names, nil
}
