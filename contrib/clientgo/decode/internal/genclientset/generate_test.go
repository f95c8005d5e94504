package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"testing"
)

// TestGeneratedIsCurrent requires zz_clientset.go to be what the generator
// writes from the lowest supported client-go, the one contrib/clientgo's
// go.mod requires: run `go generate` in the decode package with GOWORK=off
// after changing either. Linked with a later release (a workspace, the
// compatibility runs), whose clientset has more groups, it checks only
// that the generator runs.
func TestGeneratedIsCurrent(t *testing.T) {
	list := filepath.Join("testdata", "groups.txt")
	want, err := generate(list, filepath.Join("testdata", "resources.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cover, err := readGroups(list)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(groups(cover)); n < 45 || n != len(cover) {
		t.Fatalf("%d group clients of %d listed", n, len(cover))
	}
	gomod, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	required := regexp.MustCompile(`(?m)^\s*k8s\.io/client-go (v\S+)`).FindSubmatch(gomod)
	if required == nil {
		t.Fatal("contrib/clientgo/go.mod requires no k8s.io/client-go")
	}
	if linked := linkedVersion("k8s.io/client-go"); linked != string(required[1]) {
		t.Skipf("linked client-go %s, not the required %s", linked, required[1])
	}
	got, err := os.ReadFile(filepath.Join("..", "..", generatedFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run GOWORK=off go generate in contrib/clientgo/decode", generatedFile)
	}
}

// linkedVersion is the version of module path linked into the test.
func linkedVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}
