// Command democluster runs the overload demo (examples/overload) against a
// real kube-apiserver instead of the simulated source: `make demo-cluster`
// starts etcd and kube-apiserver on loopback and runs it.
//
// It creates a namespace with -objects ConfigMaps, then runs the demo's
// three runs (client-go's own informer, fanout's with its defaults, fanout's
// with coalescing): an informer on a ListWatch of client-go's REST client
// with three handlers (fast, slow, stalled) while -workers clients patch the
// ConfigMaps through the API at -rate updates per second. It prints the same progress lines, table and chart path as
// `make demo`, and deletes the namespace at the end.
//
// The heap it reports is this process's: the informer's, plus the update
// clients' (small and the same in both runs).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kfanout/fanout/examples/overload/demo"
)

func main() {
	cfg := demo.Config{
		Objects:    2000,
		Rate:       500,
		Payload:    256,
		Duration:   20 * time.Second,
		SlowDelay:  200 * time.Millisecond,
		MaxPending: 1000,
		Drain:      10 * time.Second,
		Sample:     200 * time.Millisecond,
	}
	kubeconfig := flag.String("kubeconfig", os.Getenv("FANOUT_E2E_KUBECONFIG"), "kubeconfig of the API server (default $FANOUT_E2E_KUBECONFIG)")
	ns := flag.String("namespace", "fanout-overload-demo", "namespace to create the ConfigMaps in (deleted at the end)")
	workers := flag.Int("workers", 16, "concurrent update requests")
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long each run produces updates")
	flag.IntVar(&cfg.Objects, "objects", cfg.Objects, "number of ConfigMaps")
	flag.IntVar(&cfg.Rate, "rate", cfg.Rate, "updates per second to send")
	flag.IntVar(&cfg.Payload, "payload", cfg.Payload, "bytes of data in each ConfigMap")
	flag.DurationVar(&cfg.SlowDelay, "slow-delay", cfg.SlowDelay, "time the slow handler spends on each notification")
	flag.IntVar(&cfg.MaxPending, "max-pending", cfg.MaxPending, "MaxPending of the slow and stalled handlers in the coalescing run")
	flag.DurationVar(&cfg.Drain, "drain", cfg.Drain, "how long the stalled handler may drain after it is released")
	out := flag.String("out", filepath.Join(os.TempDir(), "fanout-overload-cluster.png"), "where to write the chart (PNG)")
	runs := flag.String("runs", strings.Join(demo.AllRuns, ","), "comma-separated runs to make, in this order: "+strings.Join(demo.AllRuns, ", "))
	metricsAddr := flag.String("metrics-addr", "", "if set, serve the handlers' stats at http://ADDR/metrics (Prometheus text format) while the demo runs")
	debugAddr := flag.String("debug-addr", "127.0.0.1:0", "serve the live debug page at http://ADDR"+demo.DebugPath+" while the demo runs; empty: no page")
	flag.Parse()
	cfg.Runs = strings.Split(*runs, ",")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *debugAddr != "" {
		cfg.Debug = demo.NewDebugPage()
		url, shutdown, err := demo.ServeDebugPage(*debugAddr, cfg.Debug)
		if err != nil {
			fmt.Fprintln(os.Stderr, "democluster:", err)
			os.Exit(1)
		}
		defer shutdown()
		fmt.Printf("Serving the debug page at %s\n", url)
	}
	if err := run(ctx, cfg, *kubeconfig, *ns, *workers, *out, *metricsAddr); err != nil {
		fmt.Fprintln(os.Stderr, "democluster:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg demo.Config, kubeconfig, ns string, workers int, out, metricsAddr string) (err error) {
	switch {
	case kubeconfig == "":
		return errors.New("no kubeconfig: pass -kubeconfig or set FANOUT_E2E_KUBECONFIG (make demo-cluster does)")
	case workers < 1:
		return fmt.Errorf("workers must be at least 1, got %d", workers)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	// The load is the point: client-side rate limiting must not pace it.
	rc.QPS = float32(max(2*cfg.Rate, 1000))
	rc.Burst = 2 * int(rc.QPS)
	// Protobuf, as controllers use for built-in types: cheaper for the
	// server to encode, so that more of the machine goes to the load.
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}

	start := time.Now()
	if err := createObjects(ctx, cs, ns, cfg.Objects, cfg.Payload, workers); err != nil {
		return err
	}
	defer func() {
		// An interrupted demo leaves the namespace: its server is likely
		// going away too (make demo-cluster stops it).
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "democluster: interrupted; namespace %s left in place\n", ns)
			return
		}
		dctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		if derr := cs.CoreV1().Namespaces().Delete(dctx, ns, metav1.DeleteOptions{}); derr != nil {
			fmt.Fprintf(os.Stderr, "democluster: deleting namespace %s: %v\n", ns, derr)
		}
	}()
	fmt.Printf("Created %d ConfigMaps in namespace %s on %s in %.1f s; %d update clients\n",
		cfg.Objects, ns, rc.Host, time.Since(start).Seconds(), workers)

	if metricsAddr != "" {
		cfg.Live = &demo.LiveStats{}
		shutdown, err := demo.ServeMetrics(metricsAddr, cfg.Live)
		if err != nil {
			return err
		}
		defer shutdown()
		fmt.Printf("Serving metrics at http://%s/metrics\n", metricsAddr)
	}
	cfg.Progress = os.Stdout
	cfg.LiveLine = isTerminal(os.Stdout)
	_, err = demo.Run(ctx, cfg, newClusterSource(cs, ns, workers), os.Stdout, out)
	return err
}

// isTerminal reports whether f is a character device, where the progress
// line can be rewritten in place.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
