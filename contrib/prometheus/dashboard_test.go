package prometheus_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// TestDashboardsQueryExportedMetrics checks every PromQL query of every
// dashboard in dashboards/ (panel targets and template variables): each
// metric it names is one that this module's providers export, and the
// fanout dashboard covers backlog, oldest pending age, delivery, coalesced,
// panics and queue depth.
func TestDashboardsQueryExportedMetrics(t *testing.T) {
	exported := exportedSeries(t)
	files, err := filepath.Glob("dashboards/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards found (err %v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var dash map[string]any
			if err := json.Unmarshal(b, &dash); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			queries := dashboardQueries(dash)
			if len(queries) == 0 {
				t.Fatal("no queries found")
			}
			used := map[string]bool{}
			for _, q := range queries {
				names := metricNames(q)
				if len(names) == 0 {
					t.Errorf("query names no metric: %s", q)
				}
				for _, n := range names {
					used[n] = true
					if !exported[n] {
						t.Errorf("query names %q, which the module does not export: %s", n, q)
					}
				}
			}
			if filepath.Base(file) != "fanout-informers.json" {
				return
			}
			for _, want := range []string{
				prometheus.MetricHandlerPending,
				prometheus.MetricHandlerOldestPendingAge,
				prometheus.MetricHandlerDelivered,
				prometheus.MetricHandlerCoalesced,
				prometheus.MetricHandlerPanics,
				prometheus.MetricQueuedItems,
			} {
				if !used[want] {
					t.Errorf("no panel shows %s", want)
				}
			}
		})
	}
}

// exportedSeries registers both providers on a new registry, creates one
// metric of each kind and returns the names of the series they export
// (a histogram's _bucket, _sum and _count).
func exportedSeries(t *testing.T) map[string]bool {
	t.Helper()
	reg := prom.NewRegistry()
	lp, err := prometheus.NewListenerMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	ip, err := prometheus.NewInformerMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	id := informer.ListenerID{Informer: "pods", Handler: "h"}
	lp.NewPendingMetric(id).Set(1)
	lp.NewHighWaterMetric(id).Set(1)
	lp.NewDeliveredMetric(id).Inc()
	lp.NewCoalescedMetric(id).Inc()
	lp.NewPanicsMetric(id).Inc()
	lp.NewHandlerDurationMetric(id).Observe(0.1)
	lp.NewOldestPendingAgeMetric(id).Set(1)
	defer lp.Release(id)
	_, nr := reserve(t, "dashboard-pods", podsGVR)
	ip.NewQueuedItemMetric(nr).Set(1)
	ip.NewProcessingLatencyMetric(nr).Observe(0.1)
	ip.NewStoreResourceVersionMetric(nr).Set(1)

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, mf := range mfs {
		name := mf.GetName()
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				out[name+suffix] = true
			}
			continue
		}
		out[name] = true
	}
	if len(out) < 10 {
		t.Fatalf("gathered only %v", out)
	}
	return out
}

// dashboardQueries returns the PromQL of every target ("expr") and the
// metric queries of the template variables (label_values(metric, label)
// becomes metric).
func dashboardQueries(v any) []string {
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(k, v[k])
			}
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case string:
			switch {
			case key == "expr":
				out = append(out, v)
			case key == "query" && strings.HasPrefix(v, "label_values("):
				out = append(out, labelValuesMetric(v))
			}
		}
	}
	walk("", v)
	return out
}

// labelValuesMetric returns the series selector of a Grafana
// label_values(selector, label) query.
func labelValuesMetric(q string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(q, "label_values("), ")")
	if i := strings.LastIndex(inner, ","); i >= 0 {
		inner = inner[:i]
	}
	return inner
}

var identRe = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)

// promqlKeywords are identifiers of PromQL that are not metric names.
var promqlKeywords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "and", "or", "unless", "inf", "nan"}

// metricNames returns the metric names a PromQL expression selects: every
// identifier outside label matchers ({...}), ranges ([...]) and strings
// that is neither a function or aggregation (followed by "("), nor a
// keyword, nor in the label list after by/without/on/ignoring/group_*.
func metricNames(q string) []string {
	var names []string
	labelList := false // the next "(...)" is a list of labels
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(q) && q[j] != c {
				if q[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case c == '{' || c == '[' || (c == '(' && labelList):
			closer := map[byte]byte{'{': '}', '[': ']', '(': ')'}[c]
			j := strings.IndexByte(q[i:], closer)
			if j < 0 {
				return append(names, "unbalanced "+string(c))
			}
			i += j + 1
			labelList = false
		case c == '$': // a Grafana variable such as $__rate_interval
			m := identRe.FindString(q[i+1:])
			i += 1 + len(m)
		case identRe.MatchString(q[i:]) && (i == 0 || !isNumberChar(q[i-1])):
			id := identRe.FindString(q[i:])
			i += len(id)
			rest := strings.TrimLeft(q[i:], " \t\n")
			switch {
			case slices.Contains([]string{"by", "without", "on", "ignoring", "group_left", "group_right"}, id):
				labelList = true
			case slices.Contains(promqlKeywords, strings.ToLower(id)):
			case strings.HasPrefix(rest, "("), startsWithWord(rest, "by"), startsWithWord(rest, "without"):
				// a function, or an aggregation (sum by (...) (...))
			default:
				names = append(names, id)
			}
		default:
			i++
		}
	}
	return names
}

// startsWithWord reports whether s starts with the identifier w.
func startsWithWord(s, w string) bool {
	if !strings.HasPrefix(s, w) {
		return false
	}
	return len(s) == len(w) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:", rune(s[len(w)]))
}

// isNumberChar reports whether c can be part of a number literal, so that
// the "e" of 1e3 is not taken for an identifier.
func isNumberChar(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// TestMetricNames checks the PromQL scanner on the shapes the dashboards
// use.
func TestMetricNames(t *testing.T) {
	for q, want := range map[string][]string{
		`sum by (informer, handler) (rate(a_total{informer=~"$informer"}[$__rate_interval]))`: {"a_total"},
		`histogram_quantile(0.99, sum by (le) (rate(b_bucket[5m])))`:                          {"b_bucket"},
		`max without (pod) (c) / on (x) group_left (y) d`:                                     {"c", "d"},
		`e > 1e3 and f offset 5m`:    {"e", "f"},
		`sum without(x) (g{h="by"})`: {"g"},
		`byte_total`:                 {"byte_total"},
	} {
		if got := metricNames(q); !slices.Equal(got, want) {
			t.Errorf("metricNames(%s) = %v, want %v", q, got, want)
		}
	}
	if got := labelValuesMetric(`label_values(g{h=~"$x"}, h)`); got != `g{h=~"$x"}` {
		t.Errorf("labelValuesMetric = %q", got)
	}
}
