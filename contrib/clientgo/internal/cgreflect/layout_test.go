package cgreflect

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// TestLinkedClientGoSupported fails when the module is built with a
// client-go outside the supported range: whoever adds a minor must re-read
// the fields listed in layout.go in the new release's source, then extend
// supportedMinors and SupportedRange.
func TestLinkedClientGoSupported(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/client-go: %v", err)
	}
	v := strings.TrimSpace(string(out))
	if err := checkVersion(v); err != nil {
		t.Fatal(err)
	}
	if got := linkedClientGo(); got != "" && got != v {
		t.Errorf("the test binary links client-go %s, go list says %s", got, v)
	}
}

// TestCheckLayout checks the layout of the client-go in use, and that a
// field this package does not find is reported by name.
func TestCheckLayout(t *testing.T) {
	if err := CheckLayout(); err != nil {
		t.Fatal(err)
	}
	bad := []field{{"listerWatcher", reflect.TypeFor[cache.ListerWatcher]()}, {"noSuchField", reflect.TypeFor[string]()}}
	err := checkStruct(informerType, "k8s.io/client-go/tools/cache", "sharedIndexInformer", bad)
	if err == nil || !strings.Contains(err.Error(), "no field noSuchField") || !strings.Contains(err.Error(), SupportedRange) {
		t.Errorf("missing field: %v", err)
	}
	wrongType := []field{{"objectDescription", reflect.TypeFor[int]()}}
	if err := checkStruct(informerType, "k8s.io/client-go/tools/cache", "sharedIndexInformer", wrongType); err == nil || !strings.Contains(err.Error(), "objectDescription is string, expected int") {
		t.Errorf("wrong type: %v", err)
	}
	if err := checkStruct(factoryType, "k8s.io/client-go/tools/cache", "sharedIndexInformer", nil); err == nil {
		t.Error("the factory type passed as the informer type")
	}
}

// TestReadInformer reads back what an informer was built from and refuses
// what is not client-go's.
func TestReadInformer(t *testing.T) {
	lw := &cache.ListWatch{}
	obj := &corev1.ConfigMap{}
	indexers := cache.Indexers{"by": func(any) ([]string, error) { return nil, nil }}
	inf := cache.NewSharedIndexInformerWithOptions(lw, obj, cache.SharedIndexInformerOptions{
		Indexers:          indexers,
		ObjectDescription: "things",
	})
	for _, in := range []cache.SharedIndexInformer{inf} {
		p, err := ReadInformer(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.ListerWatcher != lw || p.ObjectType != obj || p.ObjectDescription != "things" || len(p.Indexers) != 1 || p.Indexers["by"] == nil {
			t.Errorf("read %+v", p)
		}
	}
	if _, err := ReadInformer(struct{ cache.SharedIndexInformer }{inf}); err == nil {
		t.Error("a foreign informer was read")
	}
}

// TestReadFactory reads back a factory's namespace, tweak and resync.
func TestReadFactory(t *testing.T) {
	called := false
	f := k8sinformers.NewSharedInformerFactoryWithOptions(nil, 7, k8sinformers.WithNamespace("ns"),
		k8sinformers.WithTweakListOptions(func(*metav1.ListOptions) { called = true }))
	s, err := ReadFactory(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Namespace != "ns" || s.DefaultResync != 7 || s.TweakListOptions == nil {
		t.Fatalf("read %+v", s)
	}
	s.TweakListOptions(nil)
	if !called {
		t.Error("the tweak read is not the one given")
	}
	if _, err := ReadFactory(struct{}{}); err == nil {
		t.Error("a foreign factory was read")
	}
}
