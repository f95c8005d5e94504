package parity

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// realPods returns n generated Pods at resourceVersion 1, as objects.
func realPods(seed uint64, n int) []runtime.Object {
	g := newPodGen(seed, max(1, n/50))
	out := make([]runtime.Object, n)
	for i := range out {
		out[i] = g.pod(i, "1")
	}
	return out
}

var podsGV = corev1.SchemeGroupVersion

func newPodServer(tb testing.TB, pods []runtime.Object) *realServer {
	s := newRealServer(tb)
	s.add(podsGV, "pods", "Pod", func() runtime.Object { return &corev1.Pod{} }, pods)
	return s
}

// TestRealServerProtocol checks that client-go's clientset decodes what
// the realistic server sends, in both codecs: a paged list, a watch
// event, a bookmark, the 410 ERROR event, and a watch-list stream.
func TestRealServerProtocol(t *testing.T) {
	pods := realPods(1, 25)
	for _, codec := range []string{"json", "proto"} {
		t.Run(codec, func(t *testing.T) {
			s := newPodServer(t, pods)
			s.bookmarkEvery = 10 * time.Millisecond
			cs := s.clientset(t, codec)
			ctx := context.Background()

			var got []corev1.Pod
			opts := metav1.ListOptions{Limit: 10}
			pages := 0
			for {
				l, err := cs.CoreV1().Pods("").List(ctx, opts)
				require.NoError(t, err)
				require.Equal(t, "1", l.ResourceVersion)
				got = append(got, l.Items...)
				pages++
				if l.Continue == "" {
					require.Nil(t, l.RemainingItemCount)
					break
				}
				require.Equal(t, int64(len(pods)-len(got)), *l.RemainingItemCount)
				opts.Continue = l.Continue
			}
			require.Equal(t, 3, pages)
			require.Len(t, got, len(pods))
			for i := range got {
				requireSamePod(t, pods[i], &got[i])
			}

			w, err := cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{AllowWatchBookmarks: true})
			require.NoError(t, err)
			defer w.Stop()
			waitOpen(t, s, 1)
			rv := s.nextRV()
			p := pods[3].(*corev1.Pod).DeepCopy()
			p.ResourceVersion = strconv.FormatInt(rv, 10)
			p.Generation = 7
			go s.send(podsGV, "pods", s.event(p, 3, rv))
			ev := <-w.ResultChan()
			require.Equal(t, watch.Modified, ev.Type)
			requireSamePod(t, p, ev.Object)
			ev = <-w.ResultChan()
			require.Equal(t, watch.Bookmark, ev.Type)
			require.Equal(t, p.ResourceVersion, ev.Object.(*corev1.Pod).ResourceVersion)
			s.expire(podsGV, "pods")
			for ev = range w.ResultChan() {
				if ev.Type != watch.Bookmark {
					break
				}
			}
			require.Equal(t, watch.Error, ev.Type)
			require.True(t, apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)))

			wl, err := cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{AllowWatchBookmarks: true, SendInitialEvents: ptrTo(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
			require.NoError(t, err)
			defer wl.Stop()
			for i := range pods {
				ev := <-wl.ResultChan()
				require.Equal(t, watch.Added, ev.Type)
				want := pods[i]
				if i == 3 {
					want = p
				}
				requireSamePod(t, want, ev.Object)
			}
			ev = <-wl.ResultChan()
			require.Equal(t, watch.Bookmark, ev.Type)
			require.Equal(t, "true", ev.Object.(*corev1.Pod).Annotations[metav1.InitialEventsAnnotationKey])
			require.Equal(t, p.ResourceVersion, ev.Object.(*corev1.Pod).ResourceVersion)
		})
	}
}

// TestRealPodSize checks that the generated Pods are in the size range
// the benchmarks claim (about 8 KiB of JSON, 5.5 KiB of protobuf) and deterministic.
func TestRealPodSize(t *testing.T) {
	s := newPodServer(t, realPods(1, 200))
	again := newPodServer(t, realPods(1, 200))
	var j, p int
	for i, it := range s.res["/api/v1/pods"].items {
		j += len(it.json)
		p += len(it.proto)
		require.Equal(t, it.json, again.res["/api/v1/pods"].items[i].json)
	}
	t.Logf("mean JSON %d B, protobuf %d B", j/200, p/200)
	require.InDelta(t, 8*1024, j/200, 1024)
	require.InDelta(t, 5.5*1024, p/200, 1024)
}

func waitOpen(tb testing.TB, s *realServer, n int) {
	deadline := time.Now().Add(time.Minute)
	for {
		if open, _ := s.openWatches(podsGV, "pods"); open >= n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("fewer than %d watches open after a minute", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// requireSamePod fails unless got is the Pod want, but for TypeMeta
// (which decoding into a typed object drops).
func requireSamePod(t *testing.T, want, got runtime.Object) {
	t.Helper()
	w, g := want.(*corev1.Pod).DeepCopy(), got.(*corev1.Pod).DeepCopy()
	w.TypeMeta, g.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	require.True(t, equality.Semantic.DeepEqual(w, g), "pod %s differs", w.Name)
}

// TestRealPodNamesUnique checks that the generator never gives two Pods of
// one namespace the same name, at the benchmarks' sizes: a collision makes
// the list hold two objects under one key, and informers then disagree
// about how many adds it means (DeltaFIFO merges them, RealFIFO does not).
func TestRealPodNamesUnique(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		g := newPodGen(1, max(1, n/50))
		seen := make(map[string]int, n)
		for i := range n {
			a := &g.apps[i%len(g.apps)]
			key := a.namespace + "/" + g.podName(i)
			if j, dup := seen[key]; dup {
				t.Fatalf("n=%d: pods %d and %d are both %s", n, j, i, key)
			}
			seen[key] = i
		}
	}
}
