package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kfanout/fanout/internal/modcopy"
)

var (
	fooGVR = schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// TestSampleControllerSwitched runs k8s.io/sample-controller twice against
// the cluster, one after the other: as published (client-go's informers)
// and switched to fanout as modcopy.SwitchSampleController does (both its
// factories). Each gets the same script in its own namespace (create a
// Foo, scale it, create a Foo whose Deployment name is taken by a
// Deployment it does not own, delete the first Foo) and the Deployments,
// Foo status and event reasons after every step must be the same.
func TestSampleControllerSwitched(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cfg := c.config(t, "kubeconfig")
	cs := c.clientset(t, "kubeconfig")
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	plain := modcopy.FromProxy(t, "k8s.io/sample-controller", modcopy.SampleControllerVersions...)
	plain.Go("mod", "edit", "-require=k8s.io/client-go@v0.37.2", "-require=k8s.io/api@v0.37.2", "-require=k8s.io/apimachinery@v0.37.2")
	plain.Go("mod", "tidy")
	switched := modcopy.FromProxy(t, "k8s.io/sample-controller", modcopy.SampleControllerVersions...)
	modcopy.SwitchSampleController(switched, true)
	switched.UseFanout("..")
	bins := t.TempDir()
	plain.Go("build", "-o", filepath.Join(bins, "client-go"), ".")
	switched.Go("build", "-o", filepath.Join(bins, "fanout"), ".")
	for impl, want := range map[string]bool{"client-go": false, "fanout": true} {
		deps := plain.Go("version", "-m", filepath.Join(bins, impl))
		if got := strings.Contains(deps, "github.com/kfanout/fanout/contrib/clientgo"); got != want {
			t.Fatalf("the %s binary links fanout's contrib/clientgo: %v, want %v", impl, got, want)
		}
	}

	createFooCRD(ctx, t, dyn, filepath.Join(plain.Dir, "artifacts", "examples", "crd-status-subresource.yaml"))

	id := runID(t)
	runs := map[string][]string{}
	for _, impl := range []string{"client-go", "fanout"} {
		ns := "sc-" + impl + "-" + id
		createNamespace(ctx, t, cs, ns)
		stop := startController(t, filepath.Join(bins, impl), filepath.Join(c.dir, "kubeconfig"))
		runs[impl] = sampleControllerScript(ctx, t, cs, dyn, ns)
		stop()
	}
	for i := range runs["client-go"] {
		if runs["client-go"][i] != runs["fanout"][i] {
			t.Errorf("step %d differs:\nclient-go: %s\nfanout:    %s", i, runs["client-go"][i], runs["fanout"][i])
		}
	}
	t.Logf("final state of both: %s", runs["fanout"][len(runs["fanout"])-1])
}

// createFooCRD creates the Foo CRD from file, unless it exists, and waits
// until it is established.
func createFooCRD(ctx context.Context, t *testing.T, dyn dynamic.Interface, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &crd.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create the Foo CRD: %v", err)
	}
	eventually(t, time.Minute, "the Foo CRD is established", func() string {
		got, err := dyn.Resource(crdGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return ""
			}
		}
		return "not established yet"
	})
}

// startController starts the sample-controller binary bin and returns a
// function that stops it (interrupt, then kill after 30 s) and waits; the
// test's cleanup calls it too, so a failing test does not leave it
// running.
func startController(t *testing.T, bin, kubeconfig string) func() {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), filepath.Base(bin)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-kubeconfig", kubeconfig)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { stopController(t, cmd, log) }) }
	t.Cleanup(stop)
	return stop
}

// stopController interrupts cmd, kills it if it has not exited 30 s
// later, and shows its log if the test failed.
func stopController(t *testing.T, cmd *exec.Cmd, log *os.File) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	_ = log.Close()
	if t.Failed() {
		out, _ := os.ReadFile(log.Name())
		t.Logf("%s output:\n%s", cmd.Path, out)
	}
}

// sampleControllerScript runs the script in ns and returns the state
// after each step.
func sampleControllerScript(ctx context.Context, t *testing.T, cs kubernetes.Interface, dyn dynamic.Interface, ns string) []string {
	t.Helper()
	foos := dyn.Resource(fooGVR).Namespace(ns)
	var states []string
	step := func(what string, done func() string) {
		t.Helper()
		eventually(t, time.Minute, ns+": "+what, done)
		states = append(states, what+": "+sampleState(ctx, t, cs, dyn, ns))
	}
	deployment := func(name string, replicas int32, owner string) func() string {
		return func() string {
			d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err.Error()
			}
			if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas || ownerName(d) != owner {
				return fmt.Sprintf("deployment %s: replicas %d, owner %q; want %d, %q", name, ptrValue(d.Spec.Replicas), ownerName(d), replicas, owner)
			}
			return ""
		}
	}
	event := func(object, reason string) func() string {
		return func() string {
			evs, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err.Error()
			}
			for _, e := range evs.Items {
				if e.InvolvedObject.Name == object && e.Reason == reason {
					return ""
				}
			}
			return "no " + reason + " event for " + object
		}
	}
	both := func(conds ...func() string) func() string {
		return func() string {
			for _, c := range conds {
				if msg := c(); msg != "" {
					return msg
				}
			}
			return ""
		}
	}

	if _, err := foos.Create(ctx, newFoo("foo1", "foo1-dep", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	step("create foo1", both(deployment("foo1-dep", 1, "Foo/foo1"), event("foo1", "Synced")))

	foo1, err := foos.Get(ctx, "foo1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(foo1.Object, int64(3), "spec", "replicas")
	if _, err := foos.Update(ctx, foo1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	step("scale foo1 to 3", deployment("foo1-dep", 3, "Foo/foo1"))

	one := int32(1)
	other := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "other-dep"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "other"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/other"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := foos.Create(ctx, newFoo("foo2", "other-dep", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	step("create foo2 on a foreign deployment", both(event("foo2", "ErrResourceExists"), deployment("other-dep", 1, "")))

	if err := foos.Delete(ctx, "foo1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	step("delete foo1", func() string {
		if _, err := foos.Get(ctx, "foo1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("foo1 still there: %v", err)
		}
		return ""
	})
	return states
}

// ptrValue is *p, or -1 for nil.
func ptrValue(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}

// newFoo returns a Foo asking for a Deployment.
func newFoo(name, deployment string, replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.k8s.io/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"deploymentName": deployment, "replicas": replicas},
	}}
}

// ownerName is the name of d's controller owner, or "".
func ownerName(d *appsv1.Deployment) string {
	if o := metav1.GetControllerOf(d); o != nil {
		return o.Kind + "/" + o.Name
	}
	return ""
}

// sampleState describes ns without names or versions that differ between
// runs: each Deployment's replicas, owner, selector and image, each Foo's
// spec and status, and the distinct event reasons per object.
func sampleState(ctx context.Context, t *testing.T, cs kubernetes.Interface, dyn dynamic.Interface, ns string) string {
	t.Helper()
	state := map[string]any{}
	deps, err := cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deps.Items {
		image := ""
		if cs := d.Spec.Template.Spec.Containers; len(cs) > 0 {
			image = cs[0].Image
		}
		state["deployment/"+d.Name] = map[string]any{"replicas": d.Spec.Replicas, "owner": ownerName(&d), "selector": d.Spec.Selector.MatchLabels, "image": image}
	}
	foos, err := dyn.Resource(fooGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range foos.Items {
		state["foo/"+f.GetName()] = map[string]any{"spec": f.Object["spec"], "status": f.Object["status"]}
	}
	evs, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]bool{}
	for _, e := range evs.Items {
		reasons[e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name+":"+e.Reason] = true
	}
	var rs []string
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	state["events"] = strings.Join(rs, ",")
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
