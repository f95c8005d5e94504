// Command gen writes zz_generated.go of package
// github.com/kfanout/fanout/contrib/clientgo/cache: every exported
// identifier of k8s.io/client-go/tools/cache that all supported releases
// have and that the package does not write by hand, as client-go's own.
//
// Run from the cache package directory (go generate does):
//
//	go run ./internal/gen          # zz_generated.go from the list and the linked client-go
//	go run ./internal/gen -list    # testdata/identifiers.txt from each release's source
//
// -list downloads each release with `go mod download`; the default mode
// reads only the linked release, from the module cache.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	listFile      = "internal/gen/testdata/identifiers.txt"
	generatedFile = "zz_generated.go"
)

func main() {
	mkList := flag.Bool("list", false, "rewrite "+listFile+" from the source of each of -releases")
	releases := flag.String("releases", "v0.35.0 v0.36.0 v0.37.2", "the supported client-go releases, for -list")
	flag.Parse()
	var err error
	if *mkList {
		err = writeList(".", strings.Fields(*releases))
	} else {
		err = writeGenerated(".")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeList rewrites the identifier list of the package in pkgDir.
func writeList(pkgDir string, releases []string) error {
	scans := make([]map[string]decl, len(releases))
	for i, r := range releases {
		dir, err := moduleDir("k8s.io/client-go@" + r)
		if err != nil {
			return err
		}
		if scans[i], err = scanDir(filepath.Join(dir, "tools", "cache")); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := buildList(releases, scans).write(&b); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(pkgDir, listFile), b.Bytes(), 0o644)
}

// writeGenerated rewrites zz_generated.go of the package in pkgDir.
func writeGenerated(pkgDir string) error {
	src, err := generatedSource(pkgDir)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(pkgDir, generatedFile), src, 0o644)
}

// generatedSource returns what zz_generated.go of the package in pkgDir
// should hold.
func generatedSource(pkgDir string) ([]byte, error) {
	l, err := readListFile(pkgDir)
	if err != nil {
		return nil, err
	}
	linked, err := linkedRelease(pkgDir)
	if err != nil {
		return nil, err
	}
	hand, err := handwritten(pkgDir)
	if err != nil {
		return nil, err
	}
	return generate(l, linked, hand)
}

// readListFile reads the identifier list of the package in pkgDir.
func readListFile(pkgDir string) (list, error) {
	f, err := os.Open(filepath.Join(pkgDir, listFile))
	if err != nil {
		return list{}, err
	}
	defer f.Close()
	return readList(f)
}

// linkedRelease scans tools/cache of the client-go that the module of
// pkgDir links.
func linkedRelease(pkgDir string) (map[string]decl, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go")
	cmd.Dir = pkgDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m k8s.io/client-go: %w", err)
	}
	return scanDir(filepath.Join(strings.TrimSpace(string(out)), "tools", "cache"))
}

// moduleDir returns the module cache directory of module@version,
// downloading it if needed.
func moduleDir(modVersion string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	return m.Dir, nil
}

// handwritten returns the top-level identifiers that the package in pkgDir
// declares in its own (not generated, not test) files.
func handwritten(pkgDir string) (map[string]bool, error) {
	entries, err := os.ReadDir(pkgDir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == generatedFile {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(pkgDir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		found := map[string]decl{}
		collect(f, found)
		for name := range found {
			out[name] = true
		}
	}
	return out, nil
}
