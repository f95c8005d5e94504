package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/informer"
)

// Config sets the size and pace of a demo.
type Config struct {
	Objects    int           // objects in the source
	Rate       int           // updates per second the source aims for
	Payload    int           // bytes of data in each object version
	Duration   time.Duration // how long each run produces updates
	SlowDelay  time.Duration // the slow handler's time per notification
	MaxPending int           // MaxPending of slow and stalled when coalescing
	Drain      time.Duration // how long the released stalled handler may drain
	Sample     time.Duration // interval between chart samples

	Progress io.Writer  // receives the progress lines; none if nil
	LiveLine bool       // rewrite one progress line in place instead of adding lines
	Live     *LiveStats // receives each scenario's registrations for /metrics; none if nil
	// Debug shows each scenario's informer while it runs; none if nil.
	Debug *debugpage.Page
	// Runs selects runs by name (see AllRuns); all of them when empty.
	Runs []string
}

// Validate returns a clear error for a Config the demo cannot run.
func (c Config) Validate() error {
	switch {
	case c.Objects < 1:
		return fmt.Errorf("objects must be at least 1, got %d", c.Objects)
	case c.Rate < 1:
		return fmt.Errorf("rate must be at least 1 update per second, got %d", c.Rate)
	case c.Payload < 0:
		return fmt.Errorf("payload must not be negative, got %d", c.Payload)
	case c.Duration <= 0:
		return fmt.Errorf("duration must be positive, got %v", c.Duration)
	case c.SlowDelay < 0:
		return fmt.Errorf("slow-delay must not be negative, got %v", c.SlowDelay)
	case c.MaxPending < 0:
		return fmt.Errorf("max-pending must not be negative, got %d", c.MaxPending)
	case c.Drain < 0:
		return fmt.Errorf("drain must not be negative, got %v", c.Drain)
	case c.Sample <= 0:
		return fmt.Errorf("sample interval must be positive, got %v", c.Sample)
	}
	for _, r := range c.Runs {
		if !slices.Contains(AllRuns, r) {
			return fmt.Errorf("unknown run %q, want one of %s", r, strings.Join(AllRuns, ", "))
		}
	}
	return nil
}

// Run names, for Config.Runs.
const (
	RunClientGo = "client-go" // client-go's shared informer
	RunDefaults = "defaults"  // fanout's, with its default handler options
	RunCoalesce = "coalesce"  // fanout's, slow and stalled with OverflowCoalesce
)

// AllRuns are the runs of a demo, in the order they run.
var AllRuns = []string{RunClientGo, RunDefaults, RunCoalesce}

// scenario is one of the demo's runs: one library's informer with the
// run's handler options.
type scenario struct {
	Title      string // names the library (and version) in the table and chart
	newSubject func(src Source, cfg Config) subject
	coalesces  bool // its Stats report Coalesced
}

// scenarios returns the runs cfg.Runs selects (all when empty), in the
// order of AllRuns.
func scenarios(cfg Config) []scenario {
	all := map[string]scenario{
		RunClientGo: {
			Title:      strings.TrimSpace("client-go " + clientGoVersion()),
			newSubject: func(src Source, _ Config) subject { return newClientGoSubject(src) },
		},
		RunDefaults: {
			Title: "fanout (defaults)",
			newSubject: func(src Source, _ Config) subject {
				return newFanoutSubject(src, informer.OverflowGrow, 0)
			},
			coalesces: true,
		},
		RunCoalesce: {
			Title: fmt.Sprintf("fanout (Coalesce %d)", cfg.MaxPending),
			newSubject: func(src Source, cfg Config) subject {
				return newFanoutSubject(src, informer.OverflowCoalesce, cfg.MaxPending)
			},
			coalesces: true,
		},
	}
	var out []scenario
	for _, name := range AllRuns {
		if len(cfg.Runs) == 0 || slices.Contains(cfg.Runs, name) {
			out = append(out, all[name])
		}
	}
	return out
}

// Run runs the scenarios one after the other, prints the table to w, writes the chart to
// chartPath and returns the results. A scenario the informer does not
// support yet is reported in the table rather than failing the demo.
func Run(ctx context.Context, cfg Config, newSource NewSourceFunc, w io.Writer, chartPath string) ([]*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "%d objects, %d updates/s for %v per run; handlers: fast (no-op), slow (%v each), stalled (until the load ends)\n",
		cfg.Objects, cfg.Rate, cfg.Duration, cfg.SlowDelay)
	var results []*Result
	for _, sc := range scenarios(cfg) {
		settle()
		fmt.Fprintf(w, "\n== %s\n", sc.Title)
		res, err := runScenario(ctx, cfg, newSource, sc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Title, err)
		}
		if res.Skipped != "" {
			fmt.Fprintf(w, "skipped: %s\n", res.Skipped)
		}
		results = append(results, res)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(w)
	writeTable(w, results)
	if err := writeChartFile(chartPath, results); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nchart: %s\n", chartPath)
	return results, nil
}

// writeChartFile writes the chart of results to path.
func writeChartFile(path string, results []*Result) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return writeChart(f, results)
}

// settle collects garbage and returns memory to the OS, so that a run
// starts from the same baseline as the one before it.
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}
