package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// chaosWorkers is the number of workload goroutines; each writes its own
// objects, so none of their writes conflict.
const chaosWorkers = 4

// chaosOps counts the workload's writes.
type chaosOps struct {
	creates, updates, deletes atomic.Int64
}

// chaosWorker creates, updates and deletes (2:7:1) the ConfigMaps of
// worker w (cm-NNNN with NNNN mod chaosWorkers = w, and those it creates)
// until stop is closed, pausing between writes. Its requests run with ctx,
// which stop does not cancel: a request given up by the client may still
// be applied by the server, after the worker returned and after the check
// listed the objects, so every write is waited for.
func chaosWorker(ctx context.Context, stop <-chan struct{}, cs kubernetes.Interface, ns string, w int, seed uint64, pause time.Duration, ops *chaosOps) error {
	rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
	cms := cs.CoreV1().ConfigMaps(ns)
	var names []string
	for i := w; i < chaosObjects; i += chaosWorkers {
		names = append(names, fmt.Sprintf("cm-%04d", i))
	}
	for n := 0; ; n++ {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		var err error
		switch x := rng.IntN(10); {
		case x < 2 || len(names) == 0:
			name := fmt.Sprintf("w%d-%05d", w, n)
			if _, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err == nil {
				names = append(names, name)
				ops.creates.Add(1)
			}
		case x < 3:
			i := rng.IntN(len(names))
			if err = cms.Delete(ctx, names[i], metav1.DeleteOptions{}); err == nil {
				names[i] = names[len(names)-1]
				names = names[:len(names)-1]
				ops.deletes.Add(1)
			}
		default:
			var cm *corev1.ConfigMap
			if cm, err = cms.Get(ctx, names[rng.IntN(len(names))], metav1.GetOptions{}); err == nil {
				cm.Data = map[string]string{"n": fmt.Sprint(n)}
				if _, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err == nil {
					ops.updates.Add(1)
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("worker %d: %w", w, err)
		}
	}
}
