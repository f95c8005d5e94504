package parity

import (
	"fmt"
	"go/types"
	"strings"
)

// inventoryEntry is one difference between client-go's tools/cache and
// fanout's informer package.
type inventoryEntry struct {
	entry string // "func Name", "type Name", "method Type.Name", "field Type.Name"
	want  string // client-go's form; empty when only fanout has it
	got   string // fanout's form; empty when fanout lacks it
}

func (e inventoryEntry) String() string {
	if e.want == "" {
		return fmt.Sprintf("  extra %s: %s", e.entry, e.got)
	}
	if e.got == "" {
		return fmt.Sprintf("  missing %s: %s", e.entry, e.want)
	}
	return fmt.Sprintf("  differs %s:\n      client-go: %s\n      fanout:    %s", e.entry, e.want, e.got)
}

// inventoryQualifier prints client-go's cache package and every fanout
// package as "cache", so that types compare modulo where they live.
func inventoryQualifier(p *types.Package) string {
	if p.Path() == clientGoCachePath || p.Path() == fanoutModule || strings.HasPrefix(p.Path(), fanoutModule+"/") {
		return "cache"
	}
	return p.Path()
}

// typeString is t printed with inventoryQualifier, parameter names
// dropped and interface{} spelled any.
func typeString(t types.Type) string {
	return strings.ReplaceAll(types.TypeString(unnamedParams(t), inventoryQualifier), "interface{}", "any")
}

// unnamedParams returns t with the parameter and result names of every
// function type it spells out removed (they are not part of the API).
func unnamedParams(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Signature:
		strip := func(tup *types.Tuple) *types.Tuple {
			vars := make([]*types.Var, tup.Len())
			for i := range tup.Len() {
				vars[i] = types.NewParam(0, nil, "", unnamedParams(tup.At(i).Type()))
			}
			return types.NewTuple(vars...)
		}
		return types.NewSignatureType(nil, nil, nil, strip(t.Params()), strip(t.Results()), t.Variadic())
	case *types.Pointer:
		return types.NewPointer(unnamedParams(t.Elem()))
	case *types.Slice:
		return types.NewSlice(unnamedParams(t.Elem()))
	case *types.Map:
		return types.NewMap(unnamedParams(t.Key()), unnamedParams(t.Elem()))
	case *types.Chan:
		return types.NewChan(t.Dir(), unnamedParams(t.Elem()))
	}
	return t
}

// typeParamsString prints a generic object's type parameter list.
func typeParamsString(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range tps.Len() {
		parts[i] = typeString(tps.At(i).Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// funcString prints a function's signature, type parameters included.
func funcString(sig *types.Signature) string {
	return typeParamsString(sig.TypeParams()) + typeString(sig)
}

// objKind names the kind of a package-level object.
func objKind(o types.Object) string {
	switch o.(type) {
	case *types.Func:
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Var:
		return "var"
	case *types.Const:
		return "const"
	}
	return "object"
}

// inventoryDiff lists every name client-go's package exports that fanout's
// lacks or has in another form.
func inventoryDiff(cg, fo *types.Package) []inventoryEntry {
	var out []inventoryEntry
	for _, name := range cg.Scope().Names() {
		want := cg.Scope().Lookup(name)
		if !want.Exported() {
			continue
		}
		entry := objKind(want) + " " + name
		got := fo.Scope().Lookup(name)
		if got == nil {
			out = append(out, inventoryEntry{entry: entry, want: describeObject(want)})
			continue
		}
		if objKind(got) != objKind(want) {
			out = append(out, inventoryEntry{entry: entry, want: describeObject(want), got: describeObject(got)})
			continue
		}
		switch want := want.(type) {
		case *types.TypeName:
			out = append(out, typeDiff(name, want, got.(*types.TypeName))...)
		default:
			if w, g := describeObject(want), describeObject(got); w != g {
				out = append(out, inventoryEntry{entry: entry, want: w, got: g})
			}
		}
	}
	return out
}

// describeObject prints an object's kind and type (and a constant's value).
func describeObject(o types.Object) string {
	switch o := o.(type) {
	case *types.Func:
		return "func " + funcString(o.Type().(*types.Signature))
	case *types.Const:
		return "const " + typeString(o.Type()) + " = " + o.Val().ExactString()
	case *types.TypeName:
		return "type " + typeString(o.Type().Underlying())
	}
	return objKind(o) + " " + typeString(o.Type())
}

// typeDiff compares one exported type: its type parameters, its
// underlying type (an interface's methods and a struct's exported fields
// one by one) and the exported methods of T and *T.
func typeDiff(name string, want, got *types.TypeName) []inventoryEntry {
	var out []inventoryEntry
	wt, gt := types.Unalias(want.Type()), types.Unalias(got.Type())
	if w, g := typeParamsOf(wt), typeParamsOf(gt); w != g {
		out = append(out, inventoryEntry{entry: "type " + name, want: "type params " + w, got: "type params " + g})
	}
	wu, gu := wt.Underlying(), gt.Underlying()
	switch wu := wu.(type) {
	case *types.Interface:
		gi, ok := gu.(*types.Interface)
		if !ok {
			return append(out, inventoryEntry{entry: "type " + name, want: "interface", got: typeString(gu)})
		}
		wm, gm := interfaceMethods(wu), interfaceMethods(gi)
		out = append(out, methodSetDiff(name, wm, gm)...)
		// An interface with more methods is another interface: client-go's
		// implementations would not satisfy it.
		for m, sig := range gm {
			if _, ok := wm[m]; !ok {
				out = append(out, inventoryEntry{entry: "method " + name + "." + m, got: sig})
			}
		}
		return out
	case *types.Struct:
		gs, ok := gu.(*types.Struct)
		if !ok {
			out = append(out, inventoryEntry{entry: "type " + name, want: "struct", got: typeString(gu)})
		} else {
			out = append(out, fieldDiff(name, wu, gs)...)
		}
	default:
		if w, g := typeString(wu), typeString(gu); w != g {
			out = append(out, inventoryEntry{entry: "type " + name, want: w, got: g})
		}
	}
	return append(out, methodSetDiff(name, namedMethods(wt), namedMethods(gt))...)
}

func typeParamsOf(t types.Type) string {
	if n, ok := t.(*types.Named); ok {
		return typeParamsString(n.TypeParams())
	}
	return ""
}

// interfaceMethods maps an interface's exported methods to their signatures.
func interfaceMethods(it *types.Interface) map[string]string {
	m := map[string]string{}
	for i := range it.NumMethods() {
		if f := it.Method(i); f.Exported() {
			m[f.Name()] = typeString(f.Type())
		}
	}
	return m
}

// namedMethods maps the exported methods of *T (which include T's) to
// their signatures.
func namedMethods(t types.Type) map[string]string {
	m := map[string]string{}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := range ms.Len() {
		if f := ms.At(i).Obj(); f.Exported() {
			m[f.Name()] = typeString(f.Type())
		}
	}
	return m
}

// methodSetDiff reports methods of want that got lacks or has differently.
func methodSetDiff(typeName string, want, got map[string]string) []inventoryEntry {
	var out []inventoryEntry
	for name, w := range want {
		g, ok := got[name]
		if ok && g == w {
			continue
		}
		out = append(out, inventoryEntry{entry: "method " + typeName + "." + name, want: w, got: g})
	}
	return out
}

// fieldDiff reports exported fields of want that got lacks or types differently.
func fieldDiff(typeName string, want, got *types.Struct) []inventoryEntry {
	gf := map[string]string{}
	for i := range got.NumFields() {
		gf[got.Field(i).Name()] = typeString(got.Field(i).Type())
	}
	var out []inventoryEntry
	for i := range want.NumFields() {
		f := want.Field(i)
		if !f.Exported() {
			continue
		}
		w := typeString(f.Type())
		if g, ok := gf[f.Name()]; !ok || g != w {
			out = append(out, inventoryEntry{entry: "field " + typeName + "." + f.Name(), want: w, got: g})
		}
	}
	return out
}
