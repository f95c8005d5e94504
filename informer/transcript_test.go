package informer

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kfanout/fanout/internal/fakelw"
)

var updateTranscripts = flag.Bool("update-transcripts", false, "rewrite the expected output of testdata/transcripts")

// TestTranscripts replays every testdata/transcripts/*.txt: a script of
// source changes and informer actions, followed by the exact handler calls
// it must produce, once per queue mode: the defaults (RealFIFO) and the
// seed preset (DeltaFIFO), each with the classic and the direct engine.
//
// A file is a script, then one or more output sections. A section headed
// "== output" applies to both queue modes; "== output deltafifo" and
// "== output realfifo" to one. Script commands, one per line ('#' starts a
// comment):
//
//	add NAME [LABEL] | modify NAME [LABEL] | delete NAME   change the source
//	handler H [OPTION...]         register a recording handler H; options:
//	                              resync=DURATION, overflow=grow|coalesce|block,
//	                              max=N, workers=N, recover, name=NAME
//	remove H                      RemoveEventHandler(H)
//	stall H                       H's next call blocks (once it is recorded)
//	release H                     unblock H's stalled call; later calls run
//	panic-on H NAME               H panics in every call for object NAME
//	                              (recorded with " (panic)")
//	stats H [FIELD...]            print H's registration Stats(), all fields or
//	                              the ones named (pending highwater delivered
//	                              coalesced panics oldest)
//	informer-resync DURATION      the informer's default resync (before run)
//	run                           start the informer
//	wait                          let everything settle (synctest.Wait)
//	sleep DURATION                advance the fake clock, then settle
//	fail-list N                   the next N lists fail
//	watch-error expired           send 410 Gone to open watches
//	close-watches                 end open watches normally
//	store                         print the cache's keys
//	synced H                      print whether H's registration synced
//
// The output lists, per handler in registration order, every call in order
// (except that a run of initial-list adds is sorted, since a late handler's
// replay follows the cache's map order), then whatever "store" and "synced"
// printed, in script order.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			script, outputs := readTranscript(t, file)
			got := map[string]string{}
			for _, mode := range []string{"deltafifo", "realfifo"} {
				for _, eng := range []ListenerEngine{EngineClassic, EngineDirect} {
					var out string
					synctest.Test(t, func(t *testing.T) {
						out = runTranscript(t, script, mode == "realfifo", eng)
					})
					if eng == EngineClassic {
						got[mode] = out
					} else {
						require.Equal(t, got[mode], out, "%s: mode %s: direct engine differs from classic", file, mode)
					}
				}
			}
			if *updateTranscripts {
				writeTranscript(t, file, script, got)
				return
			}
			for _, mode := range []string{"deltafifo", "realfifo"} {
				want, ok := outputs[mode]
				if !ok {
					want, ok = outputs[""]
				}
				require.True(t, ok, "no output section for %s", mode)
				require.Equal(t, want, got[mode], "%s: output of mode %s", file, mode)
			}
		})
	}
}

// readTranscript splits a file into its script lines and output sections.
func readTranscript(t *testing.T, file string) (script []string, outputs map[string]string) {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	outputs = map[string]string{}
	section := "script"
	var out strings.Builder
	flush := func() {
		if section != "script" {
			outputs[section] = out.String()
		}
		out.Reset()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "== output"); ok {
			flush()
			section = strings.TrimSpace(rest)
			continue
		}
		if section == "script" {
			script = append(script, line)
		} else {
			out.WriteString(line + "\n")
		}
	}
	require.NoError(t, sc.Err())
	flush()
	return script, outputs
}

func writeTranscript(t *testing.T, file string, script []string, got map[string]string) {
	var b strings.Builder
	for _, l := range script {
		b.WriteString(l + "\n")
	}
	if got["deltafifo"] == got["realfifo"] {
		b.WriteString("== output\n" + got["deltafifo"])
	} else {
		b.WriteString("== output deltafifo\n" + got["deltafifo"] + "== output realfifo\n" + got["realfifo"])
	}
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
}

// runTranscript runs script in the current bubble and returns its output.
func runTranscript(t *testing.T, script []string, inOrder bool, eng ListenerEngine) string {
	src := fakelw.New(&corev1.Pod{})
	var inf SharedIndexInformer
	opts := SharedIndexInformerOptions{InOrder: queueOption(inOrder), ListenerEngine: eng}
	informer := func() SharedIndexInformer {
		if inf == nil {
			inf = NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, opts)
		}
		return inf
	}
	var order []string
	recs := map[string]*trRecorder{}
	regs := map[string]ResourceEventHandlerRegistration{}
	var notes []string
	var stop func()
	defer func() {
		for _, r := range recs {
			r.setStall(false) // a stalled handler would keep Run from returning
		}
		if stop != nil {
			stop()
		}
	}()

	for n, raw := range script {
		line, _, _ := strings.Cut(raw, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		arg := func(i int) string {
			if i < len(f) {
				return f[i]
			}
			return ""
		}
		dur := func(s string) time.Duration {
			d, err := time.ParseDuration(s)
			require.NoError(t, err, "line %d", n+1)
			return d
		}
		switch f[0] {
		case "add":
			src.Add(siPod(arg(1), labelArgs(arg(2))...))
		case "modify":
			src.Modify(siPod(arg(1), labelArgs(arg(2))...))
		case "delete":
			src.Delete(siPod(arg(1)))
		case "informer-resync":
			require.Nil(t, inf, "line %d: informer-resync must come before the informer is used", n+1)
			opts.ResyncPeriod = dur(arg(1))
		case "handler":
			rec := &trRecorder{}
			ho := HandlerOptions{Name: arg(1)}
			for _, kv := range f[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "resync":
					d := dur(v)
					ho.ResyncPeriod = &d
				case "overflow":
					ho.Overflow = map[string]OverflowPolicy{"grow": OverflowGrow, "coalesce": OverflowCoalesce, "block": OverflowBlock}[v]
				case "max":
					_, err := fmt.Sscan(v, &ho.MaxPending)
					require.NoError(t, err, "line %d", n+1)
				case "workers":
					_, err := fmt.Sscan(v, &ho.Workers)
					require.NoError(t, err, "line %d", n+1)
					rec.byKey = ho.Workers > 1
				case "recover":
					ho.RecoverPanics = true
				case "name":
					ho.Name = v
				default:
					t.Fatalf("line %d: unknown handler option %q", n+1, k)
				}
			}
			reg, err := informer().AddEventHandlerWithOptions(rec, ho)
			require.NoError(t, err)
			order = append(order, arg(1))
			recs[arg(1)], regs[arg(1)] = rec, reg
		case "remove":
			require.NoError(t, informer().RemoveEventHandler(regs[arg(1)]))
		case "stall":
			recs[arg(1)].setStall(true)
		case "release":
			recs[arg(1)].setStall(false)
		case "panic-on":
			recs[arg(1)].panicOn(arg(2))
		case "stats":
			st, ok := StatsOf(regs[arg(1)])
			require.True(t, ok, "line %d: registration has no Stats", n+1)
			notes = append(notes, formatStats(arg(1), st, f[2:]))
		case "run":
			stop = siRun(t, informer())
		case "wait":
			synctest.Wait()
		case "sleep":
			time.Sleep(dur(arg(1)))
			synctest.Wait()
		case "fail-list":
			var n int
			_, err := fmt.Sscan(arg(1), &n)
			require.NoError(t, err)
			errs := make([]error, n)
			for i := range errs {
				errs[i] = errors.New("list failed")
			}
			src.FailList(errs...)
		case "watch-error":
			require.Equal(t, "expired", arg(1))
			src.SendWatchError(apierrors.NewResourceExpired("too old resource version"))
		case "close-watches":
			src.CloseWatches()
		case "store":
			keys := informer().GetStore().ListKeys()
			sort.Strings(keys)
			notes = append(notes, "store: "+strings.Join(keys, " "))
		case "synced":
			notes = append(notes, fmt.Sprintf("synced %s: %v", arg(1), regs[arg(1)].HasSynced()))
		default:
			t.Fatalf("line %d: unknown command %q", n+1, f[0])
		}
	}
	synctest.Wait()
	var b strings.Builder
	for _, h := range order {
		for _, c := range sortInitialRuns(recs[h].take()) {
			fmt.Fprintf(&b, "%s: %s\n", h, c)
		}
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// sortInitialRuns sorts each run of consecutive initial-list adds: a late
// handler's replay comes in the cache's (map) order, in client-go too.
func sortInitialRuns(calls []string) []string {
	isInitial := func(c string) bool { return strings.HasPrefix(c, "add ") && strings.HasSuffix(c, " initial=true") }
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && isInitial(calls[j]) {
			j++
		}
		sort.Strings(calls[i:j])
		i = max(j, i+1)
	}
	return calls
}

func labelArgs(l string) []string {
	if l == "" {
		return nil
	}
	return []string{l}
}

// formatStats renders a "stats" line with the named fields, or all of them.
func formatStats(h string, st ListenerStats, fields []string) string {
	all := []struct{ name, value string }{
		{"pending", fmt.Sprint(st.Pending)},
		{"highwater", fmt.Sprint(st.HighWater)},
		{"delivered", fmt.Sprint(st.Delivered)},
		{"coalesced", fmt.Sprint(st.Coalesced)},
		{"panics", fmt.Sprint(st.Panics)},
		{"oldest", st.OldestPendingAge.String()},
	}
	b := strings.Builder{}
	b.WriteString("stats " + h + ":")
	for _, f := range all {
		if len(fields) == 0 || slices.Contains(fields, f.name) {
			b.WriteString(" " + f.name + "=" + f.value)
		}
	}
	return b.String()
}
