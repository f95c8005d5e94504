package parity

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/modcopy"
)

// TestSampleController runs the unit tests of k8s.io/sample-controller
// (controller_test.go: fake clientsets and factories) with its informers
// served by fanout. What is switched:
//
//   - "imports": every import of k8s.io/client-go/informers becomes
//     contrib/clientgo/informers; nothing else changes. The Foo informers
//     still come from sample-controller's own generated factory, which is
//     its code, not an import.
//   - "generated": the same, and the generated Foo informer builds its
//     informer with contrib/clientgo/cache's constructor (one call), so
//     that the Foo informers are fanout's too.
//
// Each copy also gets one added test, TestFanoutProof, which fails unless
// the informers its fixture builds are fanout's, so a passing run cannot
// come from client-go's informers.
func TestSampleController(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of k8s.io/sample-controller; skipped under -short")
	}
	for _, generated := range []bool{false, true} {
		name := map[bool]string{false: "imports", true: "generated"}[generated]
		t.Run(name, func(t *testing.T) {
			m := modcopy.FromProxy(t, "k8s.io/sample-controller", modcopy.SampleControllerVersions...)
			modcopy.SwitchSampleController(m, generated)
			m.UseFanout(filepath.Join("..", ".."))
			// Adding fanout leaves the client-go of sample-controller's release.
			if v := strings.TrimSpace(m.Go("list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")); v != m.Version {
				t.Fatalf("the switched copy builds with client-go %s, want sample-controller's %s", v, m.Version)
			}
			out := m.Go("test", "-count=1", "-v", ".")
			for _, want := range []string{"--- PASS: TestFanoutProof", "--- PASS: TestCreatesDeployment", "--- PASS: TestUpdateDeployment"} {
				if !strings.Contains(out, want) {
					t.Errorf("sample-controller's tests did not report %q:\n%s", want, out)
				}
			}
			if fails := regexp.MustCompile(`(?m)^\s*--- FAIL`).FindAllString(out, -1); len(fails) > 0 {
				t.Errorf("failures:\n%s", out)
			}
			t.Logf("sample-controller %s, switched (%s):\n%s", m.Version, name, out)
		})
	}
}
