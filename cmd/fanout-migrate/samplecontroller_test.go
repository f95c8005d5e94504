package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sampleControllerVersions are tried in order: v0.37.2 matches client-go
// v0.37.2; the proxy has answered 403 for it, so v0.37.1 (the same
// controller and generated code) stands in, and go's minimal version
// selection lifts its client-go to v0.37.2 through fanout's requirement.
var sampleControllerVersions = []string{"v0.37.2", "v0.37.1"}

// TestSampleController converts k8s.io/sample-controller from the module
// proxy with the tool, points github.com/kfanout/fanout and its
// contrib/clientgo module at this repository, and checks that the result
// builds and that its own unit tests (controller_test.go, fake clientsets
// and factories) pass. It compiles client-go, so it is skipped with
// -short; it is skipped as well when the module proxy cannot be reached,
// and while contrib/clientgo/informers is not in the tree.
func TestSampleController(t *testing.T) {
	goTool, repo := needGoAndRepo(t)
	if _, err := os.Stat(filepath.Join(repo, "contrib", "clientgo", "informers")); err != nil {
		// The converted controller imports the factory package; until it
		// is in this tree the build cannot succeed.
		t.Skipf("%s/informers is not in this tree yet (the factory issue): %v", clientGoModule, err)
	}
	src, version := downloadSampleController(t, goTool)

	dir := filepath.Join(t.TempDir(), "sample-controller")
	copyTree(t, src, dir)

	var stdout, stderr bytes.Buffer
	code := run([]string{"./..."}, dir, &stdout, &stderr)
	t.Logf("fanout-migrate on sample-controller %s:\n%s%s", version, stdout.String(), stderr.String())
	if code != exitOK {
		t.Fatalf("fanout-migrate exit status %d, want %d: it should convert sample-controller without a report", code, exitOK)
	}

	goCmd := func(args ...string) { goIn(t, goTool, dir, args...) }
	useThisRepo(t, goTool, dir, repo)
	goCmd("build", "./...")
	goCmd("vet", "./...")
	goCmd("test", "-count=1", "-timeout", "10m", "./...")
}

// downloadSampleController returns the directory of sample-controller in
// the module cache, skipping the test when the proxy has none of the
// versions.
func downloadSampleController(t *testing.T, goTool string) (dir, version string) {
	t.Helper()
	var errs []string
	for _, v := range sampleControllerVersions {
		cmd := exec.Command(goTool, "mod", "download", "-json", "k8s.io/sample-controller@"+v)
		cmd.Dir = t.TempDir() // outside any module
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
		out, _ := cmd.Output()
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil {
			errs = append(errs, v+": "+strings.TrimSpace(string(out)))
			continue
		}
		if info.Error != "" || info.Dir == "" {
			errs = append(errs, v+": "+info.Error)
			continue
		}
		if v != sampleControllerVersions[0] {
			t.Logf("k8s.io/sample-controller@%s: %s; using %s", sampleControllerVersions[0], errs[0], v)
		}
		return info.Dir, v
	}
	t.Skipf("the Go module proxy did not give k8s.io/sample-controller (is it reachable?):\n%s", strings.Join(errs, "\n"))
	return "", ""
}

// copyTree copies a module out of the read-only module cache.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goIn runs the go command in dir, outside any workspace, and fails the
// test when it fails.
func goIn(t *testing.T, goTool, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(goTool, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s:\n%s", strings.Join(args, " "), out)
}

// useThisRepo points the module in dir at this repository's root and
// contrib/clientgo modules, and tidies it.
func useThisRepo(t *testing.T, goTool, dir, repo string) {
	t.Helper()
	goIn(t, goTool, dir, "mod", "edit",
		"-require", rootModule+"@v0.0.0", "-replace", rootModule+"="+repo,
		"-require", clientGoModule+"@v0.0.0", "-replace", clientGoModule+"="+filepath.Join(repo, "contrib", "clientgo"))
	goIn(t, goTool, dir, "mod", "tidy")
}

// needGoAndRepo skips a test that compiles client-go under -short or
// without a go command, and returns the go command and this repository.
func needGoAndRepo(t *testing.T) (goTool, repo string) {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles client-go: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	repo, err = filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return goTool, repo
}
