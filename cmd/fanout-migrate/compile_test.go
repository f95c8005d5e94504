package main

import (
	"path"
	"path/filepath"
	"testing"

	"github.com/kfanout/fanout/internal/modcopy"
)

// compilingGoldens are the golden cases whose converted output must build
// and vet: every case but those whose report names a place left broken.
var compilingGoldens = []string{"plain", "aliased", "dotblank", "dynamic", "fanoutimports", "cacheonly", "typeid-factory", "typeid-mixed", "typeid-unconvertible"}

// TestGoldenOutputsCompile builds and vets the converted golden modules of
// compilingGoldens, each a package of one module, against this repository
// and client-go v0.37.2. It compiles client-go, so it is skipped with
// -short.
func TestGoldenOutputsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles client-go: skipped with -short")
	}
	m := modcopy.New(t)
	m.WriteFile("go.mod", "module example.com/golden\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/api v0.37.2\n\tk8s.io/client-go v0.37.2\n)\n")
	for _, c := range compilingGoldens {
		for name, data := range readTree(t, filepath.Join("testdata", "migrate", c, "out")) {
			if name != "go.mod" {
				m.WriteFile(path.Join(c, name), string(data))
			}
		}
	}
	m.UseFanout(filepath.Join("..", ".."))
	m.Go("vet", "./...")
}
