package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	soakWorkers   = 4
	soakBigKeys   = 4
	soakBigMaxKiB = 1000 // ConfigMaps are limited to 1 MiB in all
	soakNS        = 4
)

// soakWorkload writes ConfigMaps at a target rate: creates, updates, label
// flips out of and into the informers' selector, deletes, and now and then
// a large object. Each key belongs to one worker, so that the writes to a
// key are serialised and the worker's model of it stays exact: after a
// failed write it reads the key back.
type soakWorkload struct {
	clients []kubernetes.Interface // admin, one per apiserver
	usable  func(i int) bool       // whether clients[i]'s apiserver is meant to serve
	ns      []string
	keys    int
	in, out string
	rate    float64
	seed    int64
	gate    sync.RWMutex // held for reading by every write; Lock pauses

	counts sync.Map // op -> *atomic.Int64
	writes atomic.Int64
}

func (w *soakWorkload) count(op string) {
	v, _ := w.counts.LoadOrStore(op, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	if !strings.HasPrefix(op, "error") && op != "resync" {
		w.writes.Add(1)
	}
}

// countsSnapshot returns op -> count.
func (w *soakWorkload) countsSnapshot() map[string]int64 {
	out := map[string]int64{}
	w.counts.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

func (w *soakWorkload) keyName(i int) (ns, name string) {
	if i >= w.keys {
		return w.ns[0], fmt.Sprintf("big-%d", i-w.keys)
	}
	return w.ns[i%len(w.ns)], fmt.Sprintf("cm-%04d", i)
}

// soakKey is a worker's model of one key: the object as last written, or
// nil when it does not exist; unknown when a read-back failed.
type soakKey struct {
	cm      *corev1.ConfigMap
	unknown bool
}

// run writes until ctx ends; tokens paces the writes.
func (w *soakWorkload) run(ctx context.Context, tokens <-chan struct{}) {
	var wg sync.WaitGroup
	for wk := 0; wk < soakWorkers; wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.worker(ctx, wk, tokens)
		}()
	}
	wg.Wait()
}

func (w *soakWorkload) worker(ctx context.Context, wk int, tokens <-chan struct{}) {
	rng := rand.New(rand.NewSource(w.seed*7919 + int64(wk)))
	model := map[int]*soakKey{}
	var mine []int
	for i := wk; i < w.keys; i += soakWorkers {
		mine = append(mine, i)
	}
	if wk == 0 {
		for b := 0; b < soakBigKeys; b++ {
			mine = append(mine, w.keys+b)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tokens:
		}
		var i int
		if wk == 0 && rng.Intn(100) < 3 {
			i = w.keys + rng.Intn(soakBigKeys)
		} else {
			i = mine[rng.Intn(len(mine)-soakBigKeysOf(wk))]
		}
		k := model[i]
		if k == nil {
			k = &soakKey{unknown: true}
			model[i] = k
		}
		w.gate.RLock()
		w.step(ctx, rng, i, k)
		w.gate.RUnlock()
	}
}

func soakBigKeysOf(wk int) int {
	if wk == 0 {
		return soakBigKeys
	}
	return 0
}

// client picks a client whose apiserver serves, at random.
func (w *soakWorkload) client(rng *rand.Rand) (int, kubernetes.Interface) {
	first := rng.Intn(len(w.clients))
	for j := range w.clients {
		i := (first + j) % len(w.clients)
		if w.usable(i) {
			return i, w.clients[i]
		}
	}
	return first, w.clients[first]
}

// step does one random write on key i.
func (w *soakWorkload) step(ctx context.Context, rng *rand.Rand, i int, k *soakKey) {
	ns, name := w.keyName(i)
	big := i >= w.keys
	ci, cs := w.client(rng)
	rctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps(ns)
	if k.unknown {
		w.readBack(rctx, ci, ns, name, k)
		return
	}
	var op string
	var err error
	var res *corev1.ConfigMap
	switch r := rng.Intn(100); {
	case k.cm == nil:
		set := w.in
		if !big && r < 25 {
			set = w.out
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{setLabel: set}},
			Data:       map[string]string{"v": "0"},
		}
		if big {
			cm.Data["blob"] = soakBlob(rng)
		}
		op = "create"
		res, err = cms.Create(rctx, cm, metav1.CreateOptions{})
	case big:
		cm := k.cm.DeepCopy()
		cm.Data["blob"] = soakBlob(rng)
		op = "update-large"
		res, err = cms.Update(rctx, cm, metav1.UpdateOptions{})
	case r < 55:
		cm := k.cm.DeepCopy()
		cm.Data["v"] = fmt.Sprint(rng.Intn(1_000_000))
		op = "update"
		res, err = cms.Update(rctx, cm, metav1.UpdateOptions{})
	case r < 80:
		cm := k.cm.DeepCopy()
		if cm.Labels[setLabel] == w.in {
			cm.Labels[setLabel], op = w.out, "flip-out"
		} else {
			cm.Labels[setLabel], op = w.in, "flip-in"
		}
		res, err = cms.Update(rctx, cm, metav1.UpdateOptions{})
	default:
		op = "delete"
		err = cms.Delete(rctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &k.cm.ResourceVersion}})
	}
	if err != nil {
		w.count("error")
		w.readBack(rctx, ci, ns, name, k)
		return
	}
	w.count(op)
	k.cm = res
	if op == "delete" {
		k.cm = nil
	}
}

// readBack reads key ns/name, preferring the other apiserver than the one
// that failed, and updates the model.
func (w *soakWorkload) readBack(ctx context.Context, failed int, ns, name string, k *soakKey) {
	order := []int{(failed + 1) % len(w.clients), failed}
	for _, ci := range order {
		if !w.usable(ci) {
			continue
		}
		cm, err := w.clients[ci].CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil:
			k.cm, k.unknown = cm, false
			w.count("resync")
			return
		case apierrors.IsNotFound(err):
			k.cm, k.unknown = nil, false
			w.count("resync")
			return
		}
	}
	k.unknown = true
	w.count("error-readback")
}

// soakBlob returns 1 KiB to soakBigMaxKiB KiB of text.
func soakBlob(rng *rand.Rand) string {
	n := (1 + rng.Intn(soakBigMaxKiB)) * 1024
	b := make([]byte, n)
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	for i := range b {
		b[i] = letters[rng.Intn(len(letters))]
	}
	return string(b)
}

// pause stops the writes after the ones in flight; resume lets them go.
func (w *soakWorkload) pause()  { w.gate.Lock() }
func (w *soakWorkload) resume() { w.gate.Unlock() }

// pacer sends rate tokens a second on the returned channel until ctx ends;
// ticks that no worker takes are dropped.
func pacer(ctx context.Context, rate float64) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}
	}()
	return ch
}
