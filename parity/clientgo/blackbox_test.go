package parity

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// blackBoxTarget is the import path the rewritten test files dot-import;
// the importer maps it to client-go's package (to find the black-box
// tests) or to fanout's (to run them).
const blackBoxTarget = "blackbox.invalid/target"

// blackBoxGoal is the share of a version's black-box tests that must pass
// against fanout: all of the version fanout replaces, 95% of v0.32.3 (the
// DeltaFIFO era), and 90% of other versions, which have no target of their
// own (v0.30.14 is at 56 of 59: its three expiration-cache tests build a
// FakeExpirationPolicy with the sets.String of before v0.37.2).
func blackBoxGoal(version string) float64 {
	switch version {
	case "v0.37.2":
		return 1
	case "v0.32.3":
		return 0.95
	}
	return 0.9
}

// TestClientGoBlackBox measures fanout with client-go's own tests of
// tools/cache. For each version in FANOUT_CLIENTGO_BLACKBOX (comma
// separated, e.g. "v0.37.2,v0.32.3"; the test is skipped without it), it
// copies that version's *_test.go files from the module cache into a
// temporary module, makes every file dot-import the package under test,
// and type-checks them (go/types) twice, removing each top-level
// declaration that does not compile until the rest does: once against
// client-go's package of that version, which leaves the black-box tests
// (those that use only exported names), and once against fanout's
// informer package. It then runs each black-box test that compiled
// against fanout in its own process, and reports pass counts. It fails if
// fewer than blackBoxGoal pass. client-go's test code is never stored in
// this repository; hack/clientgo-blackbox.sh is the usual entry point.
func TestClientGoBlackBox(t *testing.T) {
	spec := os.Getenv("FANOUT_CLIENTGO_BLACKBOX")
	if spec == "" {
		t.Skip("set FANOUT_CLIENTGO_BLACKBOX=v0.37.2,v0.32.3 to run client-go's tests against fanout")
	}
	pkgs := os.Getenv("FANOUT_CLIENTGO_BLACKBOX_PKGS")
	if pkgs == "" {
		pkgs = "informer"
	}
	for v := range strings.SplitSeq(spec, ",") {
		for name := range strings.SplitSeq(pkgs, ",") {
			pkg, ok := blackBoxPackages[strings.TrimSpace(name)]
			if !ok {
				t.Fatalf("FANOUT_CLIENTGO_BLACKBOX_PKGS: unknown package %q (informer, typeid)", name)
			}
			t.Run(strings.TrimSpace(v)+"/"+strings.TrimSpace(name), func(t *testing.T) { runBlackBox(t, strings.TrimSpace(v), pkg) })
		}
	}
}

// blackBoxPackages are the fanout packages client-go's tests can run
// against (FANOUT_CLIENTGO_BLACKBOX_PKGS): the standalone informer package,
// and the type-identical one, where everything but the informer
// constructors is client-go's own.
var blackBoxPackages = map[string]string{
	"informer": fanoutInformer,
	"typeid":   "github.com/kfanout/fanout/contrib/clientgo/cache",
}

// blackBoxRun is what runBlackBox found for one version.
type blackBoxRun struct {
	all, blackBox, compiled []string // Test functions
	passed, failed          []string
}

func runBlackBox(t *testing.T, version, target string) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	modcache := strings.TrimSpace(goOutput(t, ".", gobin, "env", "GOMODCACHE"))
	src := filepath.Join(modcache, "k8s.io", "client-go@"+version, "tools", "cache")
	if _, err := os.Stat(src); err != nil {
		goOutput(t, ".", gobin, "mod", "download", "k8s.io/client-go@"+version)
	}
	link := os.Getenv("FANOUT_CLIENTGO_BLACKBOX_LINK") != ""
	mod := blackBoxModule(t, gobin, link)
	// Link the release under test, so that fanout is built and run with
	// that release's api and apimachinery (make compat); otherwise the
	// release this test binary links (the workspace's, in make test).
	linked := version
	if !link {
		linked = strings.TrimSpace(goOutput(t, ".", gobin, "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", "k8s.io/client-go"))
	}
	goOutput(t, mod, gobin, "get", "k8s.io/client-go@"+linked, "k8s.io/api@"+linked, "k8s.io/apimachinery@"+linked)
	pkgDir := filepath.Join(mod, "cache")

	// Write the rewritten but unpruned files once so that go mod tidy
	// finds every module the tests import (go-cmp, gofuzz, ...).
	fset, files := parseClientGoTests(t, src)
	writeFiles(t, fset, files, pkgDir, target)
	writeFile(t, filepath.Join(pkgDir, "zz_fanout_gates_test.go"), []byte(followGatesFile))
	goOutput(t, mod, gobin, "mod", "tidy", "-e")
	// Then compile export data for everything the tests, client-go's
	// package of this version and fanout import.
	cgFset, cgFiles := parseDir(t, src, func(name string) bool { return !strings.HasSuffix(name, "_test.go") })
	paths := importPaths(append(slices.Clone(files), cgFiles...))
	paths = append(paths, target, clientGoCachePath)
	exports := exportData(t, mod, gobin, paths)

	fset, files = parseClientGoTests(t, src)
	run := blackBoxRun{all: testFuncs(files)}
	base := exportImporter(token.NewFileSet(), exports)
	cg := clientGoPackage(t, version, base, cgFset, cgFiles)
	run.blackBox = testFuncs(prune(fset, files, &mapImporter{target: cg, base: base}))

	fset, files = parseClientGoTests(t, src)
	fo, err := base.Import(target)
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{}
	kept := pruneWhy(fset, files, &mapImporter{target: fo, base: base}, why)
	run.compiled = intersect(testFuncs(kept), run.blackBox)
	if err := os.RemoveAll(pkgDir); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, fset, kept, pkgDir, target)
	writeFile(t, filepath.Join(pkgDir, "zz_fanout_gates_test.go"), []byte(followGatesFile))

	bin := filepath.Join(mod, "cache.test")
	goOutput(t, pkgDir, gobin, "test", "-c", "-o", bin, ".")
	for _, name := range run.compiled {
		cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.count=1", "-test.timeout=3m")
		cmd.Dir = pkgDir
		out, err := cmd.CombinedOutput()
		if err != nil {
			run.failed = append(run.failed, name)
			t.Logf("FAIL %s:\n%s", name, tail(out, 40))
			continue
		}
		run.passed = append(run.passed, name)
	}
	notCompiled := subtract(run.blackBox, run.compiled)
	t.Logf("passed: %v", run.passed)
	for _, name := range notCompiled {
		t.Logf("NOT COMPILED %s: %s", name, why[name])
	}
	t.Logf("client-go %s tools/cache: %d tests, %d black-box; against %s: %d passed, %d failed %v, %d did not compile %v",
		version, len(run.all), len(run.blackBox), target, len(run.passed), len(run.failed), run.failed, len(notCompiled), notCompiled)
	if len(run.blackBox) == 0 {
		t.Fatal("no black-box tests found")
	}
	if target == blackBoxPackages["typeid"] {
		// The type-identical package exports what every supported release
		// has; a test that names an identifier only newer releases have
		// does not compile against it (fanout-migrate leaves such selectors
		// on client-go's package). Every test that compiles must pass.
		if len(run.compiled) == 0 || len(run.failed) > 0 {
			t.Errorf("%d of %d compiled black-box tests pass against the type-identical package", len(run.passed), len(run.compiled))
		}
		return
	}
	if got := float64(len(run.passed)) / float64(len(run.blackBox)); got < blackBoxGoal(version) {
		t.Errorf("%d of %d black-box tests pass (%.1f%%), want at least %.0f%%",
			len(run.passed), len(run.blackBox), 100*got, 100*blackBoxGoal(version))
	}
}

// followGatesFile is added to the tests run against fanout: client-go's
// tests set client-go's feature gates in code (features/testing), which
// fanout follows only through FollowClientGoFeatureGates.
const followGatesFile = `package cache

import clientgo "github.com/kfanout/fanout/contrib/clientgo"

func init() { clientgo.FollowClientGoFeatureGates() }
`

// blackBoxModule creates a temporary module with fanout and
// contrib/clientgo replaced by this checkout. Its requirements are the
// parity module's (runBlackBox then sets the linked release), or, when link is set (a release is
// linked into fanout, make compat), contrib/clientgo's: the go get of that
// release then raises its floors as a user's would, and make compat's scratch
// copy, whose contrib/clientgo already has the release, builds nothing twice.
func blackBoxModule(t *testing.T, gobin string, link bool) string {
	mod := t.TempDir()
	if keep := os.Getenv("FANOUT_CLIENTGO_BLACKBOX_DIR"); keep != "" {
		mod = filepath.Join(keep, filepath.Base(mod))
		if err := os.MkdirAll(mod, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	base := ".." // the parity module
	if link {
		base = filepath.Join(root, "contrib", "clientgo")
	}
	gomod, err := os.ReadFile(filepath.Join(base, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	const clientgoPath = "github.com/kfanout/fanout/contrib/clientgo"
	var b strings.Builder
	for line := range strings.Lines(string(gomod)) {
		switch {
		case strings.HasPrefix(line, "replace github.com/kfanout/fanout"), strings.HasPrefix(line, "tool "):
			continue
		case strings.HasPrefix(line, "module "):
			line = "module clientgoblackbox\n"
		}
		b.WriteString(line)
	}
	if !strings.Contains(b.String(), clientgoPath+" v0.0.0") {
		b.WriteString("\nrequire " + clientgoPath + " v0.0.0\n")
	}
	b.WriteString("\nreplace github.com/kfanout/fanout => " + root + "\n" +
		"\nreplace " + clientgoPath + " => " + filepath.Join(root, "contrib", "clientgo") + "\n")
	writeFile(t, filepath.Join(mod, "go.mod"), []byte(b.String()))
	sum, err := os.ReadFile(filepath.Join(base, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "go.sum"), sum)
	return mod
}

// parseClientGoTests parses a client-go version's test files and rewrites
// them into one package "cache" that dot-imports blackBoxTarget (files of
// package cache) or imports it under their name for client-go's path
// (files of package cache_test).
func parseClientGoTests(t *testing.T, src string) (*token.FileSet, []*ast.File) {
	fset, files := parseDir(t, src, func(name string) bool { return strings.HasSuffix(name, "_test.go") })
	for _, f := range files {
		external := f.Name.Name != "cache"
		f.Name.Name = "cache"
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == clientGoCachePath {
				imp.Path.Value = strconv.Quote(blackBoxTarget)
				if imp.Name == nil {
					imp.Name = ast.NewIdent("cache")
				}
			}
		}
		if !external {
			addImport(f, ".", blackBoxTarget)
		}
	}
	return fset, files
}

// parseDir parses the Go files of dir whose names keep accepts.
func parseDir(t *testing.T, dir string, keep func(string) bool) (*token.FileSet, []*ast.File) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || !keep(e.Name()) {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// addImport adds `import name "path"` to f.
func addImport(f *ast.File, name, path string) {
	spec := &ast.ImportSpec{Name: ast.NewIdent(name), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(path)}}
	decl := &ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{spec}}
	f.Decls = append([]ast.Decl{decl}, f.Decls...)
	f.Imports = append(f.Imports, spec)
}

// prune type-checks files and removes every top-level declaration (or
// import) that has an error, until the rest compiles. It returns files.
func prune(fset *token.FileSet, files []*ast.File, imp types.Importer) []*ast.File {
	return pruneWhy(fset, files, imp, nil)
}

// pruneWhy is prune that records in why, if not nil, the first error of
// each function it removes.
func pruneWhy(fset *token.FileSet, files []*ast.File, imp types.Importer, why map[string]string) []*ast.File {
	defer dropUnusedDotImports(fset, files, imp)
	for range 100 {
		var errs []types.Error
		conf := types.Config{Importer: imp, GoVersion: "go1.26", Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				errs = append(errs, te)
			}
		}}
		_, _ = conf.Check("clientgoblackbox/cache", fset, files, nil)
		if len(errs) == 0 {
			return files
		}
		removed := false
		for _, e := range errs {
			for _, f := range files {
				if name := funcAt(f, e.Pos); name != "" && why != nil && why[name] == "" {
					why[name] = e.Msg
				}
				if removeAt(f, e.Pos) {
					removed = true
				}
			}
		}
		if !removed {
			return files
		}
	}
	return files
}

// dropUnusedDotImports removes the dot import of blackBoxTarget from the
// files that use none of its names (go/types does not report it).
// The synthesized import has no position, so neither has its error, and
// prune cannot remove it by position.
func dropUnusedDotImports(fset *token.FileSet, files []*ast.File, imp types.Importer) {
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, GoVersion: "go1.26", Error: func(error) {}}
	_, _ = conf.Check("clientgoblackbox/cache", fset, files, info)
	used := map[*token.File]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != nil && obj.Pkg().Path() != "clientgoblackbox/cache" && obj.Parent() == obj.Pkg().Scope() {
			if target, _ := imp.Import(blackBoxTarget); target == obj.Pkg() || isTargetAlias(target, obj) {
				used[fset.File(id.Pos())] = true
			}
		}
	}
	for _, f := range files {
		if used[fset.File(f.Pos())] {
			continue
		}
		for i, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.IMPORT || len(g.Specs) != 1 {
				continue
			}
			if spec := g.Specs[0].(*ast.ImportSpec); spec.Name != nil && spec.Name.Name == "." && spec.Path.Value == strconv.Quote(blackBoxTarget) {
				f.Decls = slices.Delete(f.Decls, i, i+1)
				break
			}
		}
	}
}

// isTargetAlias reports whether obj is what target's scope holds under
// obj's name (a name target re-exports from another package).
func isTargetAlias(target *types.Package, obj types.Object) bool {
	return target != nil && target.Scope().Lookup(obj.Name()) == obj
}

// funcAt returns the name of the top-level function of f that contains
// pos, or "".
func funcAt(f *ast.File, pos token.Pos) string {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && pos >= fd.Pos() && pos <= fd.End() {
			return fd.Name.Name
		}
	}
	return ""
}

// removeAt removes from f the top-level declaration, or the import or
// value spec, that contains pos. It reports whether it removed anything.
func removeAt(f *ast.File, pos token.Pos) bool {
	if pos < f.Pos() || pos > f.End() {
		return false
	}
	for i, d := range f.Decls {
		if pos < d.Pos() || pos > d.End() {
			continue
		}
		if g, ok := d.(*ast.GenDecl); ok && len(g.Specs) > 1 {
			for j, s := range g.Specs {
				if pos >= s.Pos() && pos <= s.End() {
					g.Specs = slices.Delete(g.Specs, j, j+1)
					return true
				}
			}
		}
		f.Decls = slices.Delete(f.Decls, i, i+1)
		return true
	}
	return false
}

// testFuncs returns the names of the Test functions in files, sorted.
func testFuncs(files []*ast.File) []string {
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			names = append(names, fd.Name.Name)
		}
	}
	slices.Sort(names)
	return names
}

// importPaths lists the packages files import.
func importPaths(files []*ast.File) []string {
	seen := map[string]bool{}
	var paths []string
	for _, f := range files {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != blackBoxTarget && p != "C" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// exportData builds the export data of paths and their dependencies in
// module mod and returns where each package's export data is.
func exportData(t *testing.T, mod, gobin string, paths []string) map[string]string {
	args := append([]string{"list", "-e", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	out := goOutput(t, mod, gobin, args...)
	exports := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), "\t")
		if ok && file != "" {
			exports[path] = file
		}
	}
	return exports
}

// exportImporter imports packages from the export data files in exports.
func exportImporter(fset *token.FileSet, exports map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// mapImporter imports blackBoxTarget as target and the rest with base.
type mapImporter struct {
	target *types.Package
	base   types.Importer
}

func (m *mapImporter) Import(path string) (*types.Package, error) {
	if path == blackBoxTarget {
		return m.target, nil
	}
	return m.base.Import(path)
}

// clientGoPackage returns client-go's tools/cache package of version: from
// export data for the version contrib/clientgo requires, otherwise
// type-checked from that version's source (with today's dependencies;
// declarations that do not compile against them are simply missing).
func clientGoPackage(t *testing.T, version string, base types.Importer, fset *token.FileSet, files []*ast.File) *types.Package {
	if version == "v0.37.2" {
		p, err := base.Import(clientGoCachePath)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	conf := types.Config{Importer: base, GoVersion: "go1.26", Error: func(error) {}}
	p, _ := conf.Check(clientGoCachePath, fset, files, nil)
	return p
}

// writeFiles prints files into dir, with blackBoxTarget replaced by target.
func writeFiles(t *testing.T, fset *token.FileSet, files []*ast.File, dir, target string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		var buf bytes.Buffer
		if err := printer.Fprint(&buf, fset, f); err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(buf.String(), strconv.Quote(blackBoxTarget), strconv.Quote(target))
		writeFile(t, filepath.Join(dir, filepath.Base(fset.File(f.Pos()).Name())), []byte(text))
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// inWorkspace reports whether the go command in this directory uses a
// go.work (make test does; make compat and GOWORK=off builds do not).
func inWorkspace(gobin string) bool {
	out, err := exec.Command(gobin, "env", "GOWORK").Output()
	work := strings.TrimSpace(string(out))
	return err == nil && work != "" && work != "off"
}

// goOutput runs the go command in dir, without the workspace, and returns
// its standard output; it fails the test if the command fails. The go
// command may add requirements (-mod=mod); in this module (dir ".") it
// does so in a copy of the module's go.mod and go.sum (one directory up;
// -modfile), so that a test run never changes the committed files. In this
// module under a workspace it runs in the workspace, whose release the
// test binary links.
func goOutput(t *testing.T, dir, gobin string, args ...string) string {
	cmd := exec.Command(gobin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	flags := "GOFLAGS=-mod=mod"
	switch {
	case dir == "." && inWorkspace(gobin):
		// The workspace (make test) pins the release this test binary
		// links; its go command takes neither -mod nor -modfile.
		flags = ""
	case dir == ".":
		tmp := t.TempDir()
		for _, f := range []string{"go.mod", "go.sum"} {
			data, err := os.ReadFile(filepath.Join("..", f))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(tmp, f), data)
		}
		flags += " -modfile=" + filepath.Join(tmp, "go.mod")
	}
	if flags != "" {
		cmd.Env = append(os.Environ(), "GOWORK=off", flags)
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.Bytes(), 60))
	}
	return stdout.String()
}

var blankLines = regexp.MustCompile(`\n{3,}`)

// tail returns the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(blankLines.ReplaceAllString(string(out), "\n\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func subtract(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
