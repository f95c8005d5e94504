package parity

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// cmResource is one resource a controller-manager-shaped process watches.
type cmResource struct {
	gv       schema.GroupVersion
	resource string
	kind     string
}

// cmResources are the 40 resources of BenchmarkRealControllerManager,
// those kube-controller-manager's controllers watch.
var cmResources = func() []cmResource {
	var out []cmResource
	add := func(gv schema.GroupVersion, pairs ...string) {
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, cmResource{gv, pairs[i], pairs[i+1]})
		}
	}
	add(schema.GroupVersion{Version: "v1"}, "pods", "Pod", "nodes", "Node", "services", "Service", "endpoints", "Endpoints",
		"configmaps", "ConfigMap", "secrets", "Secret", "serviceaccounts", "ServiceAccount", "namespaces", "Namespace",
		"persistentvolumes", "PersistentVolume", "persistentvolumeclaims", "PersistentVolumeClaim",
		"replicationcontrollers", "ReplicationController", "resourcequotas", "ResourceQuota", "limitranges", "LimitRange",
		"events", "Event", "podtemplates", "PodTemplate")
	add(schema.GroupVersion{Group: "apps", Version: "v1"}, "deployments", "Deployment", "replicasets", "ReplicaSet",
		"statefulsets", "StatefulSet", "daemonsets", "DaemonSet", "controllerrevisions", "ControllerRevision")
	add(schema.GroupVersion{Group: "batch", Version: "v1"}, "jobs", "Job", "cronjobs", "CronJob")
	add(schema.GroupVersion{Group: "discovery.k8s.io", Version: "v1"}, "endpointslices", "EndpointSlice")
	add(schema.GroupVersion{Group: "policy", Version: "v1"}, "poddisruptionbudgets", "PodDisruptionBudget")
	add(schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "roles", "Role", "rolebindings", "RoleBinding",
		"clusterroles", "ClusterRole", "clusterrolebindings", "ClusterRoleBinding")
	add(schema.GroupVersion{Group: "storage.k8s.io", Version: "v1"}, "storageclasses", "StorageClass", "csinodes", "CSINode",
		"csidrivers", "CSIDriver", "volumeattachments", "VolumeAttachment")
	add(schema.GroupVersion{Group: "networking.k8s.io", Version: "v1"}, "ingresses", "Ingress", "networkpolicies", "NetworkPolicy")
	add(schema.GroupVersion{Group: "autoscaling", Version: "v2"}, "horizontalpodautoscalers", "HorizontalPodAutoscaler")
	add(schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}, "leases", "Lease")
	add(schema.GroupVersion{Group: "certificates.k8s.io", Version: "v1"}, "certificatesigningrequests", "CertificateSigningRequest")
	add(schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1"}, "priorityclasses", "PriorityClass")
	return out
}()

// cmObject returns the i-th generated object of r (for Pods, a generated
// Pod): metadata with labels, annotations and one managedFields entry.
func cmObject(pods *podGen, r cmResource, i int, rv int64) kruntime.Object {
	if r.kind == "Pod" {
		return pods.pod(i, strconv.FormatInt(rv, 10))
	}
	obj, err := scheme.Scheme.New(r.gv.WithKind(r.kind))
	if err != nil {
		panic(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(r.gv.WithKind(r.kind))
	m := obj.(metav1.Object)
	ns := realNamespaces[i%len(realNamespaces)]
	t := metav1.NewTime(realEpoch.Add(time.Duration(i) * time.Second))
	m.SetName(fmt.Sprintf("%s-%s-%05d", ns, r.resource, i))
	m.SetNamespace(ns)
	m.SetUID(types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, rv)))
	m.SetResourceVersion(strconv.FormatInt(rv, 10))
	m.SetCreationTimestamp(t)
	m.SetLabels(map[string]string{"app.kubernetes.io/name": ns + "-app", "app.kubernetes.io/part-of": ns, "app.kubernetes.io/managed-by": "helm", "team": realTeams[i%len(realTeams)]})
	m.SetAnnotations(map[string]string{"meta.helm.sh/release-name": ns + "-app", "meta.helm.sh/release-namespace": ns})
	m.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "helm", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: r.gv.String(), Time: &t, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:meta.helm.sh/release-name":{},"f:meta.helm.sh/release-namespace":{}},"f:labels":{".":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:team":{}}}}`)}}})
	return obj
}

// cmEvent is one churn event of the controller-manager scenario.
type cmEvent struct {
	r  cmResource
	ev *realEvent
}

// BenchmarkRealControllerManager runs a process shaped like a controller
// manager: 40 informers (cmResources, protobuf, watch-list), over
// FANOUT_REAL_CM_PODS Pods (default 5000) and 100 objects of each other
// kind, with 60 handlers (one per informer, two more on each of the
// first ten). Once every informer is synced it idles for
// FANOUT_REAL_IDLE_MS (default 3000; the server sends a bookmark a
// second on each watch), then receives FANOUT_REAL_CM_CHURN updates
// (default 5000; 60% Pods, the rest spread over the other kinds) at
// 1000 per second. Metrics:
//
//   - goroutines: goroutines added by the 40 informers and their handlers
//     (the HTTP client's included, the same for both).
//   - heap-MB: live heap after GC added by the informers, synced.
//   - idle-cpu-ms/s: process CPU per second while idle.
//   - churn-cpu-ns/event, churn-allocs/event: per update under churn.
//   - lag-p99-ms: handler lag under churn, over all handlers.
func BenchmarkRealControllerManager(b *testing.B) {
	quietLogs(b)
	pods := envInt("FANOUT_REAL_CM_PODS", 5000)
	churn := envInt("FANOUT_REAL_CM_CHURN", 5000)
	idle := time.Duration(envInt("FANOUT_REAL_IDLE_MS", 3000)) * time.Millisecond
	s := newRealServer(b)
	pg := newPodGen(1, max(1, pods/50))
	counts := make([]int, len(cmResources))
	for ri, r := range cmResources {
		counts[ri] = 100
		if r.kind == "Pod" {
			counts[ri] = pods
		}
		objs := make([]kruntime.Object, counts[ri])
		for i := range objs {
			objs[i] = cmObject(pg, r, i, 1)
		}
		gvk := r.gv.WithKind(r.kind)
		s.add(r.gv, r.resource, r.kind, func() kruntime.Object { o, _ := scheme.Scheme.New(gvk); return o }, objs)
	}
	rnd := rand.New(rand.NewPCG(3, 3))
	evs := make([]cmEvent, churn)
	perResource := make([]int, len(cmResources))
	for k := range evs {
		ri := 0
		if rnd.IntN(10) >= 6 {
			ri = 1 + rnd.IntN(len(cmResources)-1)
		}
		r, i, rv := cmResources[ri], rnd.IntN(counts[ri]), s.nextRV()
		obj := cmObject(pg, r, i, rv)
		obj.(metav1.Object).SetGeneration(int64(churnGen + k))
		evs[k] = cmEvent{r, s.event(obj, i, rv)}
		perResource[ri]++
	}
	for _, im := range realImpls("clientgo", "fanout") {
		b.Run("informers=40/handlers=60/impl="+im.name, func(b *testing.B) {
			benchRealCM(b, s, im, counts, perResource, evs, idle)
		})
	}
}

func benchRealCM(b *testing.B, s *realServer, im realImpl, counts, perResource []int, evs []cmEvent, idle time.Duration) {
	im.setup(b)
	var goroutines, heapMB, idleCPU, churnCPU, churnAllocs, p99 float64
	b.StopTimer()
	for range b.N {
		g0, h0 := numGoroutine(), heapAfterGC()
		sent := make([]atomic.Int64, len(evs))
		var running []*runningReal
		var hs []*realHandler
		opened := make([]int, len(cmResources))
		for ri, r := range cmResources {
			rc := cmRESTClient(b, s, r.gv)
			lw := cache.NewListWatchFromClient(rc, r.resource, metav1.NamespaceAll, fields.Everything())
			obj, _ := scheme.Scheme.New(r.gv.WithKind(r.kind))
			inf := im.make(lw, obj)
			nh := 1
			if ri < 10 {
				nh = 3
			}
			for range nh {
				h := newRealHandler(counts[ri], perResource[ri], sent)
				if perResource[ri] == 0 {
					close(h.updatesDone)
				}
				if _, err := inf.add(h); err != nil {
					b.Fatal(err)
				}
				hs = append(hs, h)
			}
			_, opened[ri] = s.openWatches(r.gv, r.resource)
			running = append(running, startReal(inf))
		}
		for ri, r := range running {
			waitFor(b, "informer sync", r.HasSynced)
			res := cmResources[ri]
			waitFor(b, "the watch", func() bool { open, o := s.openWatches(res.gv, res.resource); return open == 1 && o > opened[ri] })
		}
		for _, h := range hs {
			waitClosed(b, "initial adds", h.addsDone)
		}
		goroutines += float64(numGoroutine() - g0)
		heapMB += (float64(heapAfterGC()) - float64(h0)) / (1 << 20)

		c0 := cpuTime()
		time.Sleep(idle)
		idleCPU += float64((cpuTime() - c0).Microseconds()) / 1e3 / idle.Seconds()

		runtime.GC()
		m0, _ := allocCounters()
		c0 = cpuTime()
		b.StartTimer()
		sendPaced(1000, sent, func(k int) { s.send(evs[k].r.gv, evs[k].r.resource, evs[k].ev) })
		for _, h := range hs {
			waitClosed(b, "updates", h.updatesDone)
		}
		b.StopTimer()
		churnCPU += float64((cpuTime() - c0).Nanoseconds()) / float64(len(evs))
		m1, _ := allocCounters()
		churnAllocs += float64(m1-m0) / float64(len(evs))
		_, c := lagPercentiles(hs)
		p99 += c
		for _, r := range running {
			r.stop()
		}
		s.srv.CloseClientConnections()
	}
	k := float64(b.N)
	b.ReportMetric(goroutines/k, "goroutines")
	b.ReportMetric(heapMB/k, "heap-MB")
	b.ReportMetric(idleCPU/k, "idle-cpu-ms/s")
	b.ReportMetric(churnCPU/k, "churn-cpu-ns/event")
	b.ReportMetric(churnAllocs/k, "churn-allocs/event")
	b.ReportMetric(p99/k, "lag-p99-ms")
}

// cmRESTClient returns a protobuf REST client for gv on the server.
func cmRESTClient(b *testing.B, s *realServer, gv schema.GroupVersion) *rest.RESTClient {
	cfg := s.config("proto")
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return rc
}
