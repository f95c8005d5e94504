package informers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// knownResources returns every resource client-go's generic ForResource
// knows, read from the case labels of informers/generic.go in the module
// cache (alias.SchemeGroupVersion.WithResource("name")), each alias
// resolved to its import path and that to its group and version through
// client-go's scheme. It fails the test unless every case label was
// resolved.
func knownResources(t *testing.T) []schema.GroupVersionResource {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/client-go: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "informers", "generic.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = path
	}
	versions := map[string]schema.GroupVersion{}
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version != "__internal" {
			versions[typ.PkgPath()] = gvk.GroupVersion()
		}
	}
	var gvrs []schema.GroupVersionResource
	labels := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "WithResource" {
			return true
		}
		labels++
		inner, ok := sel.X.(*ast.SelectorExpr)
		lit, litOK := call.Args[0].(*ast.BasicLit)
		pkg, pkgOK := inner.X.(*ast.Ident)
		if !ok || !litOK || !pkgOK || inner.Sel.Name != "SchemeGroupVersion" {
			t.Errorf("%s: unexpected case label", fset.Position(call.Pos()))
			return true
		}
		gv, found := versions[imports[pkg.Name]]
		if !found {
			t.Errorf("%s: no group version for package %q", fset.Position(call.Pos()), imports[pkg.Name])
			return true
		}
		res, _ := strconv.Unquote(lit.Value)
		gvrs = append(gvrs, gv.WithResource(res))
		return true
	})
	if labels == 0 || len(gvrs) != labels || labels != strings.Count(mustRead(t, file), "WithResource(") {
		t.Fatalf("read %d resources from %d case labels of %s", len(gvrs), labels, file)
	}
	sort.Slice(gvrs, func(i, j int) bool { return gvrs[i].String() < gvrs[j].String() })
	return gvrs
}

// mustRead returns the contents of file.
func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
