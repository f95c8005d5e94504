package debugpage

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"
)

// t0 is the page's fake clock at the start of each test.
var t0 = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// sampledPage runs the scenario for a minute (in the bubble), registers it
// with a page on a fake clock and takes two samples 5s apart, with two
// updates between them. The stalled handler then has 4 notifications
// pending, the oldest for a minute; the healthy one has none.
func sampledPage(t *testing.T) (*Page, *testingclock.FakeClock) {
	t.Helper()
	sc := startScenario(t)
	fc := testingclock.NewFakeClock(t0)
	p := New(Options{Clock: fc, SampleInterval: 5 * time.Second, Samples: 4, BehindAfter: 30 * time.Second, Refresh: 2 * time.Second})
	require.NoError(t, p.Register("configmaps", sc.inf))
	time.Sleep(time.Minute)
	p.Sample()
	sc.src.Modify(cm("a", "1"))
	sc.src.Modify(cm("b", "1"))
	synctest.Wait()
	fc.Step(5 * time.Second)
	p.Sample()
	return p, fc
}

// get serves one request of p and returns the response.
func get(t *testing.T, p *Page, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec
}

// TestPageJSON checks every field of the JSON snapshot of the scenario.
func TestPageJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := sampledPage(t)
		rec := get(t, p, "/debug/informers?format=json")
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var got Snapshot
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		t1 := t0.Add(5 * time.Second)
		want := Snapshot{
			Time:                  t1,
			BehindAfterSeconds:    30,
			SampleIntervalSeconds: 5,
			Informers: []InformerView{{
				Name:                "configmaps",
				Resource:            "*v1.ConfigMap",
				ObjectType:          "*v1.ConfigMap",
				Synced:              true,
				SyncState:           "Synced",
				StoreSize:           3,
				QueueDepth:          0,
				LastResourceVersion: "5",
				WatchRestarts:       0,
				Handlers: []HandlerView{{
					Name: "healthy", Engine: "direct", Overflow: "Grow", Workers: 1, Synced: true, SyncState: "Synced",
					// HighWater depends on when its goroutine ran; not compared.
					Pending: 0, HighWater: got.Informers[0].Handlers[0].HighWater, Delivered: 5,
					DeliveredPerSecond: 0.4,
					Backlog:            []BacklogPoint{{t0, 0}, {t1, 0}},
				}, {
					Name: "stalled", Engine: "direct", Overflow: "Grow", Workers: 1, Synced: false,
					SyncState:       "HandlerPending",
					NotSyncedReason: "*v1.ConfigMap/stalled: handler has 3 initial notifications to handle, the oldest waiting for 1m0s",
					Pending:         4, HighWater: 4, Delivered: 1,
					OldestPendingAgeSeconds: 60, Behind: true,
					Backlog: []BacklogPoint{{t0, 2}, {t1, 4}},
				}},
			}},
		}
		assert.Equal(t, want, got)
	})
}

// TestPageHTML checks the rows, the behind mark, the sparklines and the
// refresh of the HTML page of the scenario.
func TestPageHTML(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := sampledPage(t)
		rec := get(t, p, "/debug/informers")
		assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
		body := rec.Body.String()
		for _, want := range []string{
			`<meta http-equiv="refresh" content="2">`,
			`<section class="informer" data-informer="configmaps">`,
			`<dd class="resource">*v1.ConfigMap</dd>`,
			`<dd class="synced">true</dd>`,
			`<small class="not-synced">*v1.ConfigMap/stalled: handler has 3 initial notifications to handle, the oldest waiting for 1m0s</small>`,
			`<dd class="store-size">3</dd>`,
			`<dd class="queue-depth">0</dd>`,
			`<dd class="resource-version">5</dd>`,
			`<dd class="watch-restarts">0</dd>`,
			`<tr class="handler" data-handler="healthy" data-behind="false">`,
			`<tr class="handler behind" data-handler="stalled" data-behind="true">`,
			`stalled <span class="status-behind">behind</span>`,
			`<td class="oldest">1m0s</td>`,
			`<td>0.4/s</td>`,
			// capacity 4: x steps of 160/3; stalled 2 then 4 of a peak of 4.
			`<polyline points="106.7,14.0 160.0,2.0"/>`,
			// healthy: 0 and 0, at the bottom.
			`<polyline points="106.7,26.0 160.0,26.0"/></svg> <small>max 0</small>`,
			`<polyline points="106.7,14.0 160.0,2.0"/></svg> <small>max 4</small>`,
		} {
			assert.Contains(t, body, want)
		}
		assert.Equal(t, 1, strings.Count(body, `data-behind="true"`), "only the stalled handler is behind")
	})
}

// TestPageLazySample checks that a request takes a sample once the newest
// is older than SampleInterval, and not before.
func TestPageLazySample(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, fc := sampledPage(t)
		backlog := func() []BacklogPoint {
			var s Snapshot
			require.NoError(t, json.Unmarshal(get(t, p, "/?format=json").Body.Bytes(), &s))
			return s.Informers[0].Handlers[1].Backlog
		}
		require.Len(t, backlog(), 2)
		fc.Step(4 * time.Second)
		require.Len(t, backlog(), 2)
		fc.Step(time.Second)
		b := backlog()
		require.Len(t, b, 3)
		assert.Equal(t, BacklogPoint{t0.Add(10 * time.Second), 4}, b[2])
		// Samples is 4: the fifth sample drops the first.
		fc.Step(5 * time.Second)
		backlog()
		fc.Step(5 * time.Second)
		b = backlog()
		require.Len(t, b, 4)
		assert.Equal(t, t0.Add(5*time.Second), b[0].Time)
		assert.Equal(t, t0.Add(20*time.Second), b[3].Time)
	})
}

// TestRunSamplesOnTicks checks that Run samples on each tick of the fake
// clock and returns when its context is done.
func TestRunSamplesOnTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := startScenario(t)
		fc := testingclock.NewFakeClock(t0)
		p := New(Options{Clock: fc, SampleInterval: time.Second})
		require.NoError(t, p.Register("configmaps", sc.inf))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.Run(ctx)
		}()
		synctest.Wait()
		require.True(t, fc.HasWaiters(), "Run waits on the ticker")
		for range 3 {
			fc.Step(time.Second)
			synctest.Wait()
		}
		p.mu.Lock()
		var lens []int
		for _, r := range p.history {
			lens = append(lens, len(r.all()))
		}
		p.mu.Unlock()
		assert.Equal(t, []int{3, 3}, lens)
		cancel()
		<-done
	})
}

// TestRegister checks the errors of Register and that Unregister drops an
// informer and its history.
func TestRegister(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := startScenario(t)
		p := New(Options{Clock: testingclock.NewFakeClock(t0)})
		require.NoError(t, p.Register("a", sc.inf))
		assert.ErrorContains(t, p.Register("a", sc.inf), `informer "a" is already registered`)
		assert.ErrorIs(t, p.Register("b", nil), ErrNotFanout)
		p.Sample()
		assert.Len(t, p.history, 2)
		p.Unregister("a")
		assert.Empty(t, p.history)
		body := get(t, p, "/").Body.String()
		assert.Contains(t, body, "No informers registered.")
	})
}

// TestMethodNotAllowed checks that only GET and HEAD are served.
func TestMethodNotAllowed(t *testing.T) {
	p := New(Options{})
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))
}
