package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/modcopy"
)

// TestSampleController converts k8s.io/sample-controller from the module
// proxy with the tool, points github.com/kfanout/fanout and its
// contrib/clientgo module at this repository, and checks that the tool
// reports nothing (exit status 0, empty standard error), that the result
// still builds and vets against the client-go of that release, and that its own unit tests
// (controller_test.go: fake clientsets and factories) pass, together with
// an added TestFanoutProof that fails unless the fixture's informers are
// fanout's. It compiles client-go, so it is skipped with -short; it is
// skipped as well when the module proxy cannot be reached.
func TestSampleController(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles client-go: skipped with -short")
	}
	m := modcopy.FromProxy(t, "k8s.io/sample-controller", modcopy.SampleControllerVersions...)

	var stdout, stderr bytes.Buffer
	code := run([]string{"./..."}, m.Dir, &stdout, &stderr)
	t.Logf("fanout-migrate on sample-controller %s:\n%s%s", m.Version, stdout.String(), stderr.String())
	if code != exitOK || stderr.Len() != 0 {
		t.Fatalf("fanout-migrate exit status %d (want %d), report %q (want none): it should convert sample-controller without a report", code, exitOK, stderr.String())
	}
	if !strings.Contains(stdout.String(), "rewrote controller.go\n") {
		t.Fatalf("fanout-migrate did not rewrite controller.go:\n%s", stdout.String())
	}

	modcopy.WriteFanoutProof(m, true)
	m.UseFanout(filepath.Join("..", ".."))
	// Adding fanout leaves the client-go of sample-controller's release.
	if v := strings.TrimSpace(m.Go("list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")); v != m.Version {
		t.Fatalf("the converted copy builds with client-go %s, want sample-controller's %s", v, m.Version)
	}
	m.Go("build", "./...")
	m.Go("vet", "./...")
	out := m.Go("test", "-count=1", "-timeout", "10m", "-v", "./...")
	for _, want := range []string{"--- PASS: TestFanoutProof", "--- PASS: TestCreatesDeployment", "--- PASS: TestUpdateDeployment"} {
		if !strings.Contains(out, want) {
			t.Errorf("sample-controller's tests did not report %q:\n%s", want, out)
		}
	}
	if fails := regexp.MustCompile(`(?m)^\s*--- FAIL`).FindAllString(out, -1); len(fails) > 0 {
		t.Errorf("failures:\n%s", out)
	}
	t.Logf("go test in the converted sample-controller:\n%s", out)
}
