package debugpage

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/fakelw"
)

// The page shows how many writes an index function refused and the last
// one, in JSON and in HTML.
//
// apimachinery's error handlers are replaced for the test: their rate
// limiter remembers the real time of the last error and, inside a synctest
// bubble (whose clock starts in 2000), would sleep for decades.
func TestPageShowsIndexRefusals(t *testing.T) {
	defer func(old []utilruntime.ErrorHandler) { utilruntime.ErrorHandlers = old }(utilruntime.ErrorHandlers)
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{func(context.Context, error, string, ...any) {}}
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.ConfigMap{})
		for _, n := range []string{"a", "b", "c"} {
			src.Add(cm(n, "0"))
		}
		refuseB := func(obj any) ([]string, error) {
			if obj.(*corev1.ConfigMap).Name == "b" {
				return nil, errors.New("no index for b")
			}
			return []string{"x"}, nil
		}
		inf := informer.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, informer.Indexers{"byX": refuseB})
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		defer wg.Wait()
		defer cancel()
		synctest.Wait()

		p := New(Options{})
		require.NoError(t, p.Register("configmaps", inf))
		var s Snapshot
		require.NoError(t, json.Unmarshal(get(t, p, "/?format=json").Body.Bytes(), &s))
		require.Len(t, s.Informers, 1)
		iv := s.Informers[0]
		assert.Equal(t, uint64(1), iv.IndexRefusals)
		require.NotNil(t, iv.LastIndexRefusal)
		last := *iv.LastIndexRefusal
		assert.True(t, last.Time.Equal(start), "refused at %v, want %v", last.Time, start)
		last.Time = time.Time{}
		assert.Equal(t, IndexRefusalView{Key: "ns/b", Index: "byX", Error: "no index for b"}, last)

		body := get(t, p, "/").Body.String()
		assert.Contains(t, body, `<dd class="index-refusals">1, last ns/b by index byX at `+start.Format("15:04:05.000")+`: no index for b</dd>`)
	})
}
