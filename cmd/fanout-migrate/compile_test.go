package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenOutputsCompile builds and vets the converted golden modules
// that are meant to compile (every case but those whose report names a
// place left broken), against this repository and client-go v0.37.2.
// The cases that import the factory packages run once those are in the
// tree. It compiles client-go, so it is skipped with -short.
func TestGoldenOutputsCompile(t *testing.T) {
	goTool, repo := needGoAndRepo(t)
	cases := []string{"plain", "aliased", "dotblank"}
	if _, err := os.Stat(filepath.Join(repo, "contrib", "clientgo", "dynamicinformer")); err == nil {
		cases = append(cases, "dynamic")
	} else {
		t.Logf("dynamic: skipped, %s/dynamicinformer is not in this tree yet", clientGoModule)
	}
	dir := t.TempDir()
	gomod := "module example.com/golden\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/api v0.37.2\n\tk8s.io/client-go v0.37.2\n)\n"
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	for _, c := range cases {
		for name, data := range readTree(t, filepath.Join("testdata", "migrate", c, "out")) {
			if name != "go.mod" {
				writeFile(t, filepath.Join(dir, c, filepath.FromSlash(name)), data)
			}
		}
	}
	useThisRepo(t, goTool, dir, repo)
	goIn(t, goTool, dir, "vet", "./...")
}
