package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// cluster is the control plane started by hack/e2e/cluster.sh.
type cluster struct {
	dir string // the cluster's state dir
	ctl string // hack/e2e/cluster.sh
}

// needCluster returns the running cluster, or skips the test when the suite
// runs outside `make e2e`.
func needCluster(t *testing.T) *cluster {
	t.Helper()
	kc := os.Getenv("FANOUT_E2E_KUBECONFIG")
	if kc == "" {
		t.Skip("FANOUT_E2E_KUBECONFIG not set: run `make e2e` to start kube-apiserver and etcd")
	}
	c := &cluster{dir: os.Getenv("FANOUT_E2E_DIR"), ctl: os.Getenv("FANOUT_E2E_CTL")}
	if c.dir == "" {
		c.dir = filepath.Dir(kc)
	}
	return c
}

// config returns a client config from the kubeconfig named name in the
// state dir ("kubeconfig", "kubeconfig-nocache", "kubeconfig-limited").
func (c *cluster) config(t *testing.T, name string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(c.dir, name))
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", name, err)
	}
	cfg.QPS = 1000
	cfg.Burst = 2000
	return cfg
}

// clientset returns a typed clientset for the kubeconfig named name.
func (c *cluster) clientset(t *testing.T, name string) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.config(t, name))
	if err != nil {
		t.Fatalf("clientset %s: %v", name, err)
	}
	return cs
}

// run calls cluster.sh with a command on this cluster.
func (c *cluster) run(t *testing.T, args ...string) string {
	t.Helper()
	if c.ctl == "" {
		t.Skip("FANOUT_E2E_CTL not set: this test needs to control the servers")
	}
	full := append([]string{args[0], c.dir}, args[1:]...)
	start := time.Now()
	out, err := exec.Command(c.ctl, full...).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("cluster.sh %s (%v)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return strings.TrimSpace(string(out))
}

// runID returns a short random name part, so that reruns against one
// cluster do not collide (namespaces never finish terminating here).
func runID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// createNamespace creates namespace name.
func createNamespace(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// serverState lists ConfigMaps matching selector in every namespace and
// returns key -> resourceVersion.
func serverState(ctx context.Context, cs kubernetes.Interface, selector string) (map[string]string, error) {
	list, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list.Items))
	for i := range list.Items {
		cm := &list.Items[i]
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out, nil
}

// storeState turns a store's List() into key -> resourceVersion.
func storeState(items []any) map[string]string {
	out := make(map[string]string, len(items))
	for _, item := range items {
		cm := item.(*corev1.ConfigMap)
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out
}

// diffStates describes how got differs from want, or returns "".
func diffStates(want, got map[string]string) string {
	var b strings.Builder
	n := 0
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			if n < 5 {
				fmt.Fprintf(&b, " %s: want rv %s, got %q;", k, v, g)
			}
			n++
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			if n < 5 {
				fmt.Fprintf(&b, " %s: unexpected (rv %s);", k, g)
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d differences (want %d objects, got %d):%s", n, len(want), len(got), b.String())
}

// eventually polls cond every 100ms until it returns "" or timeout passes,
// then fails with cond's last answer.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := cond()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v: %s", what, timeout, msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// parallel runs f(i) for i in [0,n) on workers goroutines and returns the
// first error.
func parallel(n, workers int, f func(i int) error) error {
	idx := make(chan int)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			var first error
			for i := range idx {
				if err := f(i); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for i := 0; i < n; i++ {
		idx <- i
	}
	close(idx)
	var first error
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
