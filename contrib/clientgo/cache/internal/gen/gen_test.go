package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pkgDir is the cache package, seen from this directory.
const pkgDir = "../.."

func TestGeneratedFileIsUpToDate(t *testing.T) {
	want, err := generatedSource(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(pkgDir, generatedFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go generate` in contrib/clientgo/cache", generatedFile)
	}
}

// TestLinkedReleaseIsListed checks that the list names every exported
// identifier of the linked client-go, with its kind, and, when the linked
// release is one of the list's, exactly the identifiers it has.
func TestLinkedReleaseIsListed(t *testing.T) {
	l, err := readListFile(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	linked, err := linkedRelease(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sortedNames(linked) {
		id, ok := l.lookup(name)
		if !ok {
			t.Errorf("%s %s of the linked client-go is not in %s: run `go run ./internal/gen -list`", linked[name].kind, name, listFile)
			continue
		}
		if id.kind != linked[name].kind {
			t.Errorf("%s is a %s in the linked client-go, a %s in the list", name, linked[name].kind, id.kind)
		}
	}
	version := linkedVersion(t)
	for _, r := range l.releases {
		if r != version {
			continue
		}
		for _, id := range l.identifiers {
			inRelease := strings.Contains(" "+strings.Join(id.releases, " ")+" ", " "+r+" ")
			if _, ok := linked[id.name]; ok != inRelease {
				t.Errorf("%s: the list says in %s is %v, the source says %v", id.name, r, inRelease, ok)
			}
		}
	}
	var later []string
	for _, id := range l.identifiers {
		if _, ok := linked[id.name]; ok && len(id.releases) < len(l.releases) {
			later = append(later, id.name)
		}
	}
	t.Logf("linked client-go %s: %d identifiers, %d of them not in every supported release (reached through client-go's package): %s",
		version, len(linked), len(later), strings.Join(later, " "))
}

// TestPackageExportsEveryCommonIdentifier checks the package as compiled:
// every identifier of every supported release is declared, generated or by
// hand, with client-go's kind (a function may be a variable holding it).
func TestPackageExportsEveryCommonIdentifier(t *testing.T) {
	l, err := readListFile(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	declared, err := scanDir(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	common := l.common()
	if len(common) < 150 {
		t.Fatalf("only %d common identifiers: the list looks truncated", len(common))
	}
	for _, id := range common {
		d, ok := declared[id.name]
		if !ok {
			t.Errorf("%s %s is missing", id.kind, id.name)
			continue
		}
		if d.kind != id.kind && (id.kind != "func" || d.kind != "var") {
			t.Errorf("%s is a %s here, a %s in client-go", id.name, d.kind, id.kind)
		}
	}
}

// linkedVersion is the version of the linked client-go.
func linkedVersion(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", "k8s.io/client-go")
	cmd.Dir = pkgDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
