package modcopy

import (
	"fmt"
	"os"
	"strings"
)

// SampleControllerVersions are the versions of k8s.io/sample-controller to
// try, first the one matching client-go v0.37.2, then the nearest the
// proxy serves. FANOUT_SAMPLE_CONTROLLER, a comma-separated list, replaces
// them: make compat sets it to the release of each pair.
var SampleControllerVersions = sampleControllerVersions()

func sampleControllerVersions() []string {
	if v := os.Getenv("FANOUT_SAMPLE_CONTROLLER"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"v0.37.2", "v0.37.1"}
}

const (
	clientGoInformers = "k8s.io/client-go/informers"
	fanoutInformers   = "github.com/kfanout/fanout/contrib/clientgo/informers"
	// typeIdenticalCache is fanout's package with the identifiers of
	// k8s.io/client-go/tools/cache, whose informer constructors build
	// fanout informers.
	typeIdenticalCache = "github.com/kfanout/fanout/contrib/clientgo/cache"
	// generatedFooInformer is sample-controller's own informer-gen
	// informer of its Foo CRD.
	generatedFooInformer = "pkg/generated/informers/externalversions/samplecontroller/v1alpha1/foo.go"
)

// SwitchSampleController switches m, a copy of k8s.io/sample-controller,
// to fanout's factories; call UseFanout afterwards. Every import of
// k8s.io/client-go/informers becomes contrib/clientgo/informers. The Foo
// informers come from sample-controller's own generated informers, its
// code rather than an import: with generated, the Foo informer's file also
// builds its informer with contrib/clientgo/cache's constructor (one call),
// so they are fanout's too. The copy gets one added test, TestFanoutProof, which fails
// unless the informers its fixture builds are fanout's (the Foo informers
// exactly when generated), so passing tests cannot come from client-go's
// informers.
func SwitchSampleController(m *Copy, generated bool) {
	t := m.t
	t.Helper()
	changed := m.ReplaceImport(clientGoInformers, fanoutInformers)
	if len(changed) == 0 {
		t.Fatalf("sample-controller %s imports %s nowhere", m.Version, clientGoInformers)
	}
	t.Logf("switched the import in %v", changed)
	if generated {
		// v0.35's generated code calls NewSharedIndexInformer, v0.36+'s
		// NewSharedIndexInformerWithOptions: "cache.NewSharedIndexInformer"
		// is the start of either call, exactly once.
		m.EditFile(generatedFooInformer, "cache.NewSharedIndexInformer", "fanoutcache.NewSharedIndexInformer")
		m.EditFile(generatedFooInformer, "\tcache \"k8s.io/client-go/tools/cache\"\n",
			"\tcache \"k8s.io/client-go/tools/cache\"\n\tfanoutcache \""+typeIdenticalCache+"\"\n")
	}
	WriteFanoutProof(m, generated)
}

// WriteFanoutProof adds TestFanoutProof to m, a copy of
// k8s.io/sample-controller switched to fanout (by SwitchSampleController
// or by cmd/fanout-migrate): it fails unless the Deployment informer its
// fixture builds is fanout's, and the Foo informer is exactly when
// fooFanout. It compiles whichever package the copy's cache name means.
func WriteFanoutProof(m *Copy, fooFanout bool) {
	m.t.Helper()
	m.WriteFile("fanout_proof_test.go", fmt.Sprintf(fanoutProof, fooFanout))
}

// fanoutProof is the test WriteFanoutProof adds; %%v is whether the Foo
// informer must be fanout's.
const fanoutProof = `package main

import (
	"context"
	"reflect"
	"testing"

	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// TestFanoutProof was added by fanout's sample-controller tests: it fails
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

// isFanout reports whether inf is fanout's informer: behind client-go's
// interface (from a switched factory), or one of fanout's informer
// package's own types (where cache means fanout's package).
func isFanout(inf any) bool {
	if cg, ok := inf.(clientgocache.SharedIndexInformer); ok {
		if _, ok := clientgo.FanoutInformer(cg); ok {
			return true
		}
	}
	typ := reflect.TypeOf(inf)
	if typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return typ != nil && typ.PkgPath() == "github.com/kfanout/fanout/informer"
}
`
