package tagproto

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// benchPods returns the encodings of n Pods of 20 Deployments: what
// their Pods share (labels, images, owner, volumes, resources) repeats,
// names, uids and addresses do not. managedFields are left out, as the
// transport filter drops them before decoding.
func benchPods(tb testing.TB, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		app := fmt.Sprintf("app-%02d", i%20)
		uid := fmt.Sprintf("%08x-1b2c-4d5e-8f90-%012x", i, i*7919)
		ip := fmt.Sprintf("10.%d.%d.%d", 100+i%20, i/256%256, i%256)
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-7d4b9c8f6d-%05x", app, i*104729%0xfffff), Namespace: "team-" + app[4:],
				GenerateName: app + "-7d4b9c8f6d-", UID: types.UID(uid), ResourceVersion: fmt.Sprint(1000 + i),
				CreationTimestamp: metav1.Unix(1700000000+int64(i), 0),
				Labels: map[string]string{
					"app": app, "app.kubernetes.io/name": app, "app.kubernetes.io/instance": app + "-prod",
					"app.kubernetes.io/version": "1.4.2", "app.kubernetes.io/managed-by": "helm", "pod-template-hash": "7d4b9c8f6d",
				},
				Annotations: map[string]string{
					"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
					"k8s.v1.cni.cncf.io/network-status": `[{"name":"aws-cni","ips":["` + ip + `"],"default":true}]`,
				},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-7d4b9c8f6d",
					UID: types.UID(fmt.Sprintf("%08x-0000-4000-8000-000000000000", i%20)), Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}},
			},
			Spec: corev1.PodSpec{
				NodeName: fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i%7, i%50), ServiceAccountName: app,
				RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler",
				TerminationGracePeriodSeconds: ptrTo(int64(30)), EnableServiceLinks: ptrTo(true),
				Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists,
					Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))}},
				Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}, DefaultMode: ptrTo(int32(420))}}}},
				Containers: []corev1.Container{{
					Name: "app", Image: "registry.example.com/" + app + ":1.4.2", ImagePullPolicy: corev1.PullIfNotPresent,
					Args:  []string{"--config=/etc/app/config.yaml", "--log-level=info"},
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					Env:   []corev1.EnvVar{{Name: "APP_NAME", Value: app}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
					},
					VolumeMounts:             []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true}},
					TerminationMessagePath:   "/dev/termination-log",
					TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				}},
			},
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning, HostIP: fmt.Sprintf("10.0.%d.%d", i%7, i%50), PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
				StartTime: ptrTo(metav1.Unix(1700000003+int64(i), 0)), QOSClass: corev1.PodQOSBurstable,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(1700000009, 0)},
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(1700000001, 0)},
				},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "registry.example.com/" + app + ":1.4.2",
					ImageID:     "registry.example.com/" + app + "@sha256:3f1c0a7b9e2d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f",
					ContainerID: fmt.Sprintf("containerd://%064x", i), Started: ptrTo(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Unix(1700000005, 0)}}}},
			},
		}
		b, err := p.Marshal()
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// podDecoder is one way to decode a Pod, for the benchmarks.
type podDecoder struct {
	name string
	make func() func([]byte, *corev1.Pod) error // a fresh decoder
}

var podDecoders = []podDecoder{
	{"generated", func() func([]byte, *corev1.Pod) error {
		return func(b []byte, p *corev1.Pod) error { return p.Unmarshal(b) }
	}},
	{"tagproto", func() func([]byte, *corev1.Pod) error {
		var d Decoder
		return func(b []byte, p *corev1.Pod) error { return d.Unmarshal(b, p) }
	}},
	{"tagproto-table", func() func([]byte, *corev1.Pod) error {
		d := Decoder{Strings: NewTable(1 << 14).String}
		return func(b []byte, p *corev1.Pod) error { return d.Unmarshal(b, p) }
	}},
	{"tagproto-shared", func() func([]byte, *corev1.Pod) error {
		d := Decoder{Strings: NewTable(1 << 14).String, Values: NewValues(1 << 12)}
		return func(b []byte, p *corev1.Pod) error { return d.Unmarshal(b, p) }
	}},
}

// BenchmarkDecodePod decodes Pods with generated code, with a Decoder
// that allocates every string, with one that interns them through a
// Table, and with one that also shares values; B/op and allocs/op are per
// Pod.
func BenchmarkDecodePod(b *testing.B) {
	pods := benchPods(b, 1000)
	for _, pd := range podDecoders {
		b.Run("impl="+pd.name, func(b *testing.B) {
			decode := pd.make()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var p corev1.Pod
				if err := decode(pods[i%len(pods)], &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodePodKept decodes 10,000 Pods and keeps them, reporting the
// heap they hold per Pod after a GC (kept-B/pod).
func BenchmarkDecodePodKept(b *testing.B) {
	pods := benchPods(b, 10000)
	for _, pd := range podDecoders {
		b.Run("impl="+pd.name, func(b *testing.B) {
			for b.Loop() {
				decode := pd.make()
				kept := make([]corev1.Pod, len(pods))
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i, data := range pods {
					if err := decode(data, &kept[i]); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(pods)), "kept-B/pod")
				runtime.KeepAlive(kept)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
