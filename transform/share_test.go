package transform

import (
	"hash/maphash"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/deltafifo"
)

// sharePod returns the i-th Pod of one ReplicaSet: what the Pods have in
// common is built afresh for each, as a decoder would.
func sharePod(i int) *corev1.Pod {
	app := strings.Repeat("app", 2)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: app + "-" + strconv.Itoa(i), UID: types.UID("uid-" + strconv.Itoa(i)),
			Labels:      map[string]string{"app": app, "pod-template-hash": "5d4f" + "9c"},
			Annotations: map[string]string{"ip": "10.0.0." + strconv.Itoa(i), "scrape": "tr" + "ue"},
		},
		Spec: corev1.PodSpec{
			NodeName: "node-" + strconv.Itoa(i%2),
			Containers: []corev1.Container{{
				Name: "main", Image: "registry/" + app + ":v1",
				Args: append(make([]string, 0, 8), "--port=8080", "--v=2"),
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
				},
				ReadinessProbe: &corev1.Probe{PeriodSeconds: 10},
			}},
			Tolerations:                   []corev1.Toleration{{Key: "k", TolerationSeconds: ptr.To(int64(300))}},
			TerminationGracePeriodSeconds: ptr.To(int64(30)),
			ImagePullSecrets:              []corev1.LocalObjectReference{}, // empty, not nil
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0." + strconv.Itoa(i)},
	}
}

// mapID is the identity of a map.
func mapID[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

func TestShareEqualValuesKeepsContent(t *testing.T) {
	tr := ShareEqualValues()
	var got []*corev1.Pod
	for i := range 5 {
		p, err := tr(sharePod(i))
		require.NoError(t, err)
		got = append(got, p.(*corev1.Pod))
	}
	for i, p := range got {
		assert.Equal(t, sharePod(i), p, "pod %d", i)
	}

	// A value is met (pod 0), made canonical (pod 1), then shared.
	assert.NotEqual(t, mapID(got[0].Labels), mapID(got[1].Labels))
	for _, p := range got[2:] {
		assert.Equal(t, mapID(got[1].Labels), mapID(p.Labels), "labels")
		assert.Equal(t, mapID(got[1].Spec.Containers[0].Resources.Requests), mapID(p.Spec.Containers[0].Resources.Requests), "requests")
		assert.Same(t, got[1].Spec.Containers[0].ReadinessProbe, p.Spec.Containers[0].ReadinessProbe)
		assert.Same(t, got[1].Spec.TerminationGracePeriodSeconds, p.Spec.TerminationGracePeriodSeconds)
		assert.Same(t, &got[1].Spec.Tolerations[0], &p.Spec.Tolerations[0])
		assert.Same(t, &got[1].Spec.Containers[0].Args[0], &p.Spec.Containers[0].Args[0])
		assert.Equal(t, unsafe.StringData(got[1].Spec.Containers[0].Image), unsafe.StringData(p.Spec.Containers[0].Image))
		// Annotations differ per Pod, so the map is each Pod's own, but
		// the value they have in common is shared.
		assert.NotEqual(t, mapID(got[1].Annotations), mapID(p.Annotations))
		assert.Equal(t, unsafe.StringData(got[1].Annotations["scrape"]), unsafe.StringData(p.Annotations["scrape"]))
		// Containers hold nothing per Pod here, so the slice is shared,
		// with its capacity cut so that an append copies it.
		assert.Same(t, &got[1].Spec.Containers[0], &p.Spec.Containers[0])
		assert.Equal(t, 2, cap(p.Spec.Containers[0].Args))
		assert.NotNil(t, p.Spec.ImagePullSecrets)
		assert.Nil(t, p.Spec.Volumes)
	}
	// Per-Pod values stay the Pod's own.
	assert.NotEqual(t, got[3].Name, got[4].Name)
}

func TestShareEqualValuesIdempotent(t *testing.T) {
	tr := ShareEqualValues()
	var got []*corev1.Pod
	for i := range 4 {
		p, err := tr(sharePod(i))
		require.NoError(t, err)
		got = append(got, p.(*corev1.Pod))
	}
	labels := mapID(got[3].Labels)
	again, err := tr(got[3])
	require.NoError(t, err)
	assert.Same(t, got[3], again)
	assert.Equal(t, sharePod(3), again)
	assert.Equal(t, labels, mapID(again.(*corev1.Pod).Labels))
}

func TestShareEqualValuesPassesOddities(t *testing.T) {
	tr := ShareEqualValues()
	tomb := deltafifo.DeletedFinalStateUnknown{Key: "ns/p", Obj: sharePod(0)}
	for _, obj := range []any{nil, "x", 7, tomb, (*corev1.Pod)(nil), &corev1.Pod{}, new(int), new(string)} {
		got, err := tr(obj)
		require.NoError(t, err)
		assert.Equal(t, obj, got)
	}
	got, err := tr(tomb)
	require.NoError(t, err)
	assert.Equal(t, sharePod(0), got.(deltafifo.DeletedFinalStateUnknown).Obj)

	// Nil and empty are kept apart.
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}, Finalizers: []string{}}}
	for range 3 {
		q := p.DeepCopy()
		_, err := tr(q)
		require.NoError(t, err)
		assert.Equal(t, p, q)
		assert.NotNil(t, q.Labels)
		assert.Nil(t, q.Annotations)
		assert.NotNil(t, q.Finalizers)
	}
}

func TestShareEqualValuesUnstructured(t *testing.T) {
	mk := func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "p" + strconv.Itoa(i), "labels": map[string]any{"app": "x" + "y"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "ports": []any{int64(80)}}}},
		}}
	}
	tr := ShareEqualValues()
	var got []*unstructured.Unstructured
	for i := range 4 {
		u, err := tr(mk(i))
		require.NoError(t, err)
		got = append(got, u.(*unstructured.Unstructured))
	}
	for i, u := range got {
		assert.Equal(t, mk(i), u)
	}
	spec := func(u *unstructured.Unstructured) unsafe.Pointer { return mapID(u.Object["spec"].(map[string]any)) }
	assert.Equal(t, spec(got[2]), spec(got[3]))
	assert.NotEqual(t, mapID(got[2].Object), mapID(got[3].Object))
}

func TestShareEqualValuesForgets(t *testing.T) {
	s := &sharer{}
	big := func() string { return strings.Repeat("v", 100) }
	mk := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k": big()}}}
	}
	var pods []*corev1.Pod
	for range 3 {
		p := mk()
		_, _ = s.transform(p)
		pods = append(pods, p)
	}
	live := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, _, ok := s.t.get(stringType, shareHash(big()))
		if ok {
			return 1
		}
		return 0
	}
	runtime.GC()
	assert.Equal(t, 1, live(), "canonical while cached objects use it")
	assert.Equal(t, unsafe.StringData(pods[1].Labels["k"]), unsafe.StringData(pods[2].Labels["k"]))
	runtime.KeepAlive(pods)
	pods = nil
	runtime.GC()
	assert.Equal(t, 0, live(), "forgotten once no cached object uses it")

	// Sweeping keeps the table near the live values.
	for i := range 5000 {
		for range 2 {
			_, _ = s.transform(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "name-" + strconv.Itoa(i) + strings.Repeat("x", 16)}})
		}
		if i%1000 == 0 {
			runtime.GC()
		}
	}
	assert.Less(t, len(s.t.m), 2100)
}

// shareHash is the hash walkString gives str.
func shareHash(str string) uint64 { return maphash.String(shareSeed, str) }

func TestShareEqualValuesConcurrent(t *testing.T) {
	tr := ShareEqualValues()
	var mu sync.Mutex
	var cached []*corev1.Pod
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 50 {
				p, err := tr(sharePod(w*100 + i))
				assert.NoError(t, err)
				mu.Lock()
				cached = append(cached, p.(*corev1.Pod))
				mu.Unlock()
			}
		})
	}
	wg.Go(func() { // a reader of the cache, as a lister is
		for range 20 {
			mu.Lock()
			snap := append([]*corev1.Pod(nil), cached...)
			mu.Unlock()
			for _, p := range snap {
				_ = p.DeepCopy()
			}
		}
	})
	wg.Wait()
	assert.Len(t, cached, 100)
	for _, p := range cached {
		i, _ := strconv.Atoi(strings.TrimPrefix(p.Name, "appapp-"))
		assert.Equal(t, sharePod(i), p)
	}
}

func BenchmarkShareEqualValues(b *testing.B) {
	tr := ShareEqualValues()
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = sharePod(i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_, _ = tr(pods[i%len(pods)].DeepCopy())
	}
}

// Hashes that fall in the same pair of slots of the seen filter are all
// remembered while no more than two of them alternate; a third evicts the
// one met least recently.
func TestShareSeenFilterPairs(t *testing.T) {
	var tb shareTable
	a := uint64(0x5a5a) &^ 1
	b := a + shareSeenSlots // the same low bits: the same slot, the same pair
	c := a | 1              // the pair's other slot
	assert.False(t, tb.seenBefore(a))
	assert.False(t, tb.seenBefore(b))
	for range 3 { // met in turn, as a label's key and value are
		assert.True(t, tb.seenBefore(a))
		assert.True(t, tb.seenBefore(b))
	}
	assert.False(t, tb.seenBefore(c), "new")
	assert.True(t, tb.seenBefore(b), "kept: the newer of the pair")
	assert.False(t, tb.seenBefore(a), "evicted by c")
	assert.False(t, tb.seenBefore(a+2), "another pair")
}

// sameBits finds equal values whose parts are the same memory equal, and
// does not for values that differ in a byte, even when they are deeply
// equal (a pointer to an equal copy): DeepEqual decides those.
func TestShareSameBits(t *testing.T) {
	name := "c"
	a := &corev1.Probe{PeriodSeconds: 10, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{name}}}}
	b := &corev1.Probe{PeriodSeconds: 10, ProbeHandler: a.ProbeHandler}
	pt := reflect.TypeFor[*corev1.Probe]()
	assert.True(t, sameBits(pt, unsafe.Pointer(a), unsafe.Pointer(b), 0))
	b.PeriodSeconds = 11
	assert.False(t, sameBits(pt, unsafe.Pointer(a), unsafe.Pointer(b), 0))
	b.PeriodSeconds = 10
	b.Exec = &corev1.ExecAction{Command: []string{name}} // equal, elsewhere
	assert.False(t, sameBits(pt, unsafe.Pointer(a), unsafe.Pointer(b), 0))

	s1 := []corev1.Toleration{{Key: name}, {Key: "d"}}
	s2 := []corev1.Toleration{s1[0], s1[1], {Key: "e"}}
	st := reflect.TypeFor[[]corev1.Toleration]()
	assert.True(t, sameBits(st, unsafe.Pointer(&s1[0]), unsafe.Pointer(&s2[0]), 2))
	assert.False(t, sameBits(st, unsafe.Pointer(&s1[0]), unsafe.Pointer(&s2[1]), 2))
	assert.False(t, sameBits(reflect.TypeFor[map[string]string](), nil, nil, 0), "maps are compared deeply")
}
