// Command overload shows what a slow and a stalled event handler cost a
// shared informer, in client-go and in fanout, and what coalescing changes.
//
// A simulated API source holds a few thousand ConfigMaps and updates them
// at a steady rate. One shared informer serves three handlers: fast (does
// nothing), slow (200 ms per notification) and stalled (blocks until the
// end of the load). The demo runs three times on the same source, load
// and handlers:
//
//  1. client-go's own shared informer (k8s.io/client-go/tools/cache, the
//     version this module requires): every notification the slow and
//     stalled handlers have not taken waits in an unbounded buffer, so the
//     heap grows with the number of events;
//  2. fanout's with its defaults: the same unbounded buffering
//     (OverflowGrow), in fanout's listeners;
//  3. fanout's with OverflowCoalesce and MaxPending 1000 for the slow and
//     stalled handlers: past the threshold at most one notification per
//     object waits, so the heap is bounded by the number of objects, and a
//     released handler catches up with the latest version of every object.
//
// It prints a progress line about every second, then a side-by-side table
// whose columns name the library, and writes a chart (PNG) of heap and
// stalled backlog over time to the path it prints. Run it with `make demo`
// or, from the examples module, `go run ./overload`. With -debug-addr
// 127.0.0.1:0 it also serves the live debug page (package debugpage) of
// the fanout runs' informers at the URL it prints; add -serve to repeat
// the demo until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/kfanout/fanout/examples/overload/demo"
)

func main() {
	cfg := defaultConfig()
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long each run produces updates")
	flag.IntVar(&cfg.Objects, "objects", cfg.Objects, "number of objects in the simulated source")
	flag.IntVar(&cfg.Rate, "rate", cfg.Rate, "updates per second the source tries to produce")
	flag.IntVar(&cfg.Payload, "payload", cfg.Payload, "bytes of data in each object version")
	flag.DurationVar(&cfg.SlowDelay, "slow-delay", cfg.SlowDelay, "time the slow handler spends on each notification")
	flag.IntVar(&cfg.MaxPending, "max-pending", cfg.MaxPending, "MaxPending of the slow and stalled handlers in the coalescing run")
	flag.DurationVar(&cfg.Drain, "drain", cfg.Drain, "how long the stalled handler may drain after it is released")
	out := flag.String("out", filepath.Join(os.TempDir(), "fanout-overload.png"), "where to write the chart (PNG)")
	runs := flag.String("runs", strings.Join(demo.AllRuns, ","), "comma-separated runs to make, in this order: "+strings.Join(demo.AllRuns, ", "))
	metricsAddr := flag.String("metrics-addr", "", "if set, serve the handlers' stats at http://ADDR/metrics (Prometheus text format) while the demo runs")
	debugAddr := flag.String("debug-addr", "", "if set (e.g. 127.0.0.1:0), serve the live debug page at http://ADDR"+demo.DebugPath+" while the demo runs")
	serve := flag.Bool("serve", false, "with -debug-addr: repeat the demo until interrupted, so that the debug page stays live")
	flag.Parse()
	cfg.Runs = strings.Split(*runs, ",")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *metricsAddr != "" {
		cfg.Live = &demo.LiveStats{}
		shutdown, err := demo.ServeMetrics(*metricsAddr, cfg.Live)
		if err != nil {
			fmt.Fprintln(os.Stderr, "overload:", err)
			os.Exit(1)
		}
		defer shutdown()
		fmt.Printf("Serving metrics at http://%s/metrics\n", *metricsAddr)
	}
	if *debugAddr != "" {
		cfg.Debug = demo.NewDebugPage()
		url, shutdown, err := demo.ServeDebugPage(*debugAddr, cfg.Debug)
		if err != nil {
			fmt.Fprintln(os.Stderr, "overload:", err)
			os.Exit(1)
		}
		defer shutdown()
		fmt.Printf("Serving the debug page at %s\n", url)
	}
	cfg.Progress = os.Stdout
	cfg.LiveLine = isTerminal(os.Stdout)
	for {
		if _, err := demo.Run(ctx, cfg, newDemoSource, os.Stdout, *out); err != nil {
			if ctx.Err() != nil && *serve {
				return // interrupted while serving
			}
			fmt.Fprintln(os.Stderr, "overload:", err)
			os.Exit(1)
		}
		if !*serve || cfg.Debug == nil {
			return
		}
		fmt.Println("\n-serve: running the demo again (interrupt to stop)")
	}
}

// isTerminal reports whether f is a character device, where the progress
// line can be rewritten in place.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// defaultConfig is what `make demo` runs: three runs of about 20 s each.
func defaultConfig() demo.Config {
	return demo.Config{
		Objects:    3000,
		Rate:       20000,
		Payload:    256,
		Duration:   15 * time.Second,
		SlowDelay:  200 * time.Millisecond,
		MaxPending: 1000,
		Drain:      3 * time.Second,
		Sample:     200 * time.Millisecond,
	}
}
