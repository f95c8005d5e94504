package parity

import (
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// legacyVersions are the client-go releases whose tools/cache names fanout
// also keeps, where they do not conflict with v0.37.2's.
var legacyVersions = []string{"v0.30.14", "v0.32.3", "v0.34.13", "v0.36.6"}

// legacyAllowed lists entries of legacyVersions that fanout deliberately
// lacks although v0.37.2 does not define them otherwise; each says why.
var legacyAllowed = map[string]string{
	// Config embeds Queue; v0.32's Queue included Store and
	// AddIfNotPresent, v0.37.2's does not (README lists the conflict).
	"method Config.AddIfNotPresent": "promoted from the embedded Queue, which is v0.37.2's",
	"method Config.Get":             "promoted from the embedded Queue, which is v0.37.2's",
	"method Config.GetByKey":        "promoted from the embedded Queue, which is v0.37.2's",
	"method Config.ListKeys":        "promoted from the embedded Queue, which is v0.37.2's",
	// v0.37.2 made Index unexported and changed it to
	// map[string]sets.Set[string] (Indices' element type): an exported
	// Index of sets.String would not fit Indices.
	"type Index": "unexported in v0.37.2, with another element type",
}

// TestLegacyAPIInventory fails on any name that one of legacyVersions'
// tools/cache exports, that v0.37.2 does not export in another form, and
// that fanout's informer package lacks or has in another form. Where
// v0.37.2 has the name in another form (or defines the interface the
// entry is a method of), v0.37.2 wins and the entry is skipped: README's
// "Where fanout deliberately differs from client-go" lists those cases.
// Versions not in the module cache are skipped (go mod download
// k8s.io/client-go@VERSION adds them); older sources are type-checked
// against today's dependencies, and a declaration that does not compile
// against them is skipped too.
func TestLegacyAPIInventory(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks several client-go versions")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	modcache := strings.TrimSpace(goOutput(t, ".", gobin, "env", "GOMODCACHE"))
	cur, fo := loadInventoryPackages(t)
	for _, v := range legacyVersions {
		t.Run(v, func(t *testing.T) {
			src := filepath.Join(modcache, "k8s.io", "client-go@"+v, "tools", "cache")
			if _, err := os.Stat(src); err != nil {
				t.Skipf("%s not in the module cache: go mod download k8s.io/client-go@%s", v, v)
			}
			fset, files := parseDir(t, src, func(name string) bool { return !strings.HasSuffix(name, "_test.go") })
			exports := exportData(t, ".", gobin, append(importPaths(files), clientGoCachePath))
			old := clientGoPackage(t, v, exportImporter(token.NewFileSet(), exports), fset, files)

			conflicts := map[string]bool{}
			for _, d := range inventoryDiff(old, cur) {
				if d.got != "" {
					conflicts[d.entry] = true
				}
			}
			var unexpected []string
			for _, d := range inventoryDiff(old, fo) {
				if conflicts[d.entry] || isV037Interface(cur, d.entry) || strings.Contains(d.want, "invalid type") {
					continue
				}
				if _, ok := legacyAllowed[d.entry]; ok {
					continue
				}
				if _, ok := inventoryAllowed[d.entry]; ok {
					continue // the same difference as from v0.37.2
				}
				unexpected = append(unexpected, d.String())
			}
			slices.Sort(unexpected)
			if len(unexpected) > 0 {
				t.Errorf("%d names of client-go %s fanout lacks:\n%s", len(unexpected), v, strings.Join(unexpected, "\n"))
			}
		})
	}
}

// isV037Interface reports whether entry is a method of an interface that
// v0.37.2 defines: its method set is v0.37.2's.
func isV037Interface(cur *types.Package, entry string) bool {
	rest, ok := strings.CutPrefix(entry, "method ")
	if !ok {
		return false
	}
	typeName, _, _ := strings.Cut(rest, ".")
	obj, ok := cur.Scope().Lookup(typeName).(*types.TypeName)
	if !ok {
		return false
	}
	_, isInterface := obj.Type().Underlying().(*types.Interface)
	return isInterface
}
