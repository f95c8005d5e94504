package clientgo

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/modcopy"
)

// sampleControllerVersions are the versions of k8s.io/sample-controller
// tried, first the one matching client-go v0.37.2, then the nearest the
// proxy serves (it builds against client-go v0.37.2 anyway: fanout's
// modules require it).
var sampleControllerVersions = []string{"v0.37.2", "v0.37.1"}

const (
	clientGoInformers = "k8s.io/client-go/informers"
	fanoutInformers   = "github.com/kfanout/fanout/contrib/clientgo/informers"
	// generatedFactory is sample-controller's own informer-gen factory
	// for its Foo CRD.
	generatedFactory = "pkg/generated/informers/externalversions/factory.go"
)

// TestSampleController runs the unit tests of k8s.io/sample-controller
// (controller_test.go: fake clientsets and factories) with its informers
// served by fanout. What is switched:
//
//   - "imports": every import of k8s.io/client-go/informers becomes
//     contrib/clientgo/informers; nothing else changes. The Foo informers
//     still come from sample-controller's own generated factory, which is
//     its code, not an import.
//   - "generated": the same, and the generated factory's InformerFor wraps
//     its newFunc in informers.FromClientGo (one line), so that the Foo
//     informers are fanout's too.
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
			m := modcopy.FromProxy(t, "k8s.io/sample-controller", sampleControllerVersions...)
			switchSampleController(t, m, generated)
			if v := strings.TrimSpace(m.Go("list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")); v != "v0.37.2" {
				t.Fatalf("the switched copy builds with client-go %s, want v0.37.2", v)
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

// switchSampleController switches m, a copy of sample-controller, to
// fanout as TestSampleController describes.
func switchSampleController(t *testing.T, m *modcopy.Copy, generated bool) {
	t.Helper()
	changed := m.ReplaceImport(clientGoInformers, fanoutInformers)
	if len(changed) == 0 {
		t.Fatalf("sample-controller %s imports %s nowhere", m.Version, clientGoInformers)
	}
	t.Logf("switched the import in %v", changed)
	if generated {
		m.EditFile(generatedFactory, "informer = newFunc(f.client, resyncPeriod)",
			"informer = fanoutinformers.FromClientGo(newFunc(f.client, resyncPeriod), resyncPeriod)")
		m.EditFile(generatedFactory, "\tcache \"k8s.io/client-go/tools/cache\"\n",
			"\tcache \"k8s.io/client-go/tools/cache\"\n\tfanoutinformers \""+fanoutInformers+"\"\n")
	}
	m.WriteFile("fanout_proof_test.go", fmt.Sprintf(fanoutProof, generated))
	m.UseFanout(filepath.Join("..", ".."))
}

// fanoutProof is the test added to the copy; %%v is whether the Foo
// informers must be fanout's.
const fanoutProof = `package main

import (
	"context"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// TestFanoutProof was added by fanout's TestSampleController: it fails
// unless the fixture's informers are fanout's.
func TestFanoutProof(t *testing.T) {
	f := newFixture(t)
	_, i, k8sI := f.newController(context.Background())
	if inf := k8sI.Apps().V1().Deployments().Informer(); !isFanout(inf) {
		t.Fatalf("the Deployment informer is %%T, not fanout's", inf)
	}
	if inf := i.Samplecontroller().V1alpha1().Foos().Informer(); isFanout(inf) != %v {
		t.Fatalf("the Foo informer is %%T; fanout's: %%v", inf, isFanout(inf))
	}
}

func isFanout(inf cache.SharedIndexInformer) bool {
	_, ok := clientgo.FanoutInformer(inf)
	return ok
}
`
