package parity

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// podGen generates Pods shaped like those of a production cluster:
// Deployment-owned Pods with the usual labels and annotations, the
// managedFields of kube-controller-manager and the kubelet, one to three
// containers (env and probes on the first) with env, ports, resources, probes and mounts, a projected
// service account volume, and a Running status with container statuses.
// Pods of one Deployment share labels, annotations and images, as in a
// cluster, so that strings repeat across cached objects. Encoded, a Pod
// takes about 8 KiB of JSON and 5.5 KiB of protobuf (TestRealPodSize). The output depends
// only on the seed, and each Pod only on the seed and its index, so that
// pod(i, ...) can be made again for an update.
type podGen struct {
	seed uint64
	apps []podApp
}

// genRand is the random source of one generated object.
type genRand struct{ rnd *rand.Rand }

// podApp is what the Pods of one Deployment have in common.
type podApp struct {
	namespace, name, team, hash, version string
	images                               []string
	checksum                             string
	envs                                 []corev1.EnvVar
}

// realNamespaces, realTeams and realImages are the pools the generator
// draws from.
var (
	realNamespaces = []string{"payments", "checkout", "search", "catalog", "identity", "billing", "notifications", "ingest", "analytics", "platform", "monitoring", "logging"}
	realTeams      = []string{"core", "growth", "infra", "data", "sre", "security"}
	realImages     = []string{"envoyproxy/envoy", "fluent/fluent-bit", "prom/statsd-exporter", "istio/proxyv2", "library/nginx", "library/redis"}
)

// newPodGen returns a generator of Pods spread over apps Deployments.
func newPodGen(seed uint64, apps int) *podGen {
	g := &podGen{seed: seed}
	r := &genRand{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for i := range apps {
		ns := realNamespaces[i%len(realNamespaces)]
		a := podApp{
			namespace: ns,
			name:      fmt.Sprintf("%s-svc-%03d", ns, i),
			team:      realTeams[r.rnd.IntN(len(realTeams))],
			hash:      r.hex(10),
			version:   fmt.Sprintf("v1.%d.%d", r.rnd.IntN(40), r.rnd.IntN(10)),
			checksum:  r.hex(64),
		}
		a.images = []string{fmt.Sprintf("registry.example.com/%s/%s:%s", ns, a.name, a.version)}
		for range r.rnd.IntN(3) {
			a.images = append(a.images, realImages[r.rnd.IntN(len(realImages))]+":1."+strconv.Itoa(r.rnd.IntN(30)))
		}
		for k := range 3 + r.rnd.IntN(6) {
			a.envs = append(a.envs, corev1.EnvVar{Name: fmt.Sprintf("APP_SETTING_%02d", k), Value: r.hex(8 + r.rnd.IntN(24))})
		}
		g.apps = append(g.apps, a)
	}
	return g
}

const hexDigits = "0123456789abcdef"

func (g *genRand) hex(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[g.rnd.IntN(16)]
	}
	return string(b)
}

// realEpoch is the creation time of every generated object.
var realEpoch = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)

// podName returns the i-th Pod's name: its app's ReplicaSet name and a
// five-digit hex suffix that is a bijection of the Pod's index within the
// app (an odd multiplier modulo 16^5), so that names never collide below
// about a million Pods per app (TestRealPodNamesUnique). Random suffixes
// collided at 100k Pods, and a DeltaFIFO informer then rightly delivered
// fewer adds than the list held.
func (pg *podGen) podName(i int) string {
	a := &pg.apps[i%len(pg.apps)]
	k := uint64(i / len(pg.apps))
	return fmt.Sprintf("%s-%s-%05x", a.name, a.hash, (k*0x9e3b1+pg.seed)&0xfffff)
}

// pod returns the i-th Pod at resourceVersion rv.
func (pg *podGen) pod(i int, rv string) *corev1.Pod {
	a := &pg.apps[i%len(pg.apps)]
	g := &genRand{rand.New(rand.NewPCG(pg.seed, uint64(i)))}
	g.hex(5) // the random suffix this draw once gave, kept so the other fields stay the same
	name := pg.podName(i)
	created := metav1.NewTime(realEpoch.Add(time.Duration(i) * time.Second))
	started := metav1.NewTime(created.Add(3 * time.Second))
	node := fmt.Sprintf("ip-10-%d-%d-%d.ec2.internal", g.rnd.IntN(4), g.rnd.IntN(256), g.rnd.IntN(256))
	podIP := fmt.Sprintf("10.%d.%d.%d", 100+g.rnd.IntN(20), g.rnd.IntN(256), g.rnd.IntN(256))
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         a.namespace,
			GenerateName:      a.name + "-" + a.hash + "-",
			UID:               types.UID(g.uid()),
			ResourceVersion:   rv,
			Generation:        1,
			CreationTimestamp: created,
			Labels: map[string]string{
				"app":                          a.name,
				"app.kubernetes.io/name":       a.name,
				"app.kubernetes.io/instance":   a.name + "-prod",
				"app.kubernetes.io/version":    a.version,
				"app.kubernetes.io/component":  "server",
				"app.kubernetes.io/part-of":    a.namespace,
				"app.kubernetes.io/managed-by": "helm",
				"pod-template-hash":            a.hash,
				"team":                         a.team,
			},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/restartedAt": "2026-10-30T12:00:00Z",
				"prometheus.io/scrape":              "true",
				"prometheus.io/port":                "9090",
				"prometheus.io/path":                "/metrics",
				"checksum/config":                   a.checksum,
				"k8s.v1.cni.cncf.io/network-status": `[{"name":"aws-cni","interface":"eth0","ips":["` + podIP + `"],"default":true,"dns":{}}]`,
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: a.name + "-" + a.hash,
				UID: types.UID(g.uid()), Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(managedSpec)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &started, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(managedStatus)}, Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			ServiceAccountName:            a.name,
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SchedulerName:                 corev1.DefaultSchedulerName,
			TerminationGracePeriodSeconds: ptrTo(int64(30)),
			EnableServiceLinks:            ptrTo(true),
			PreemptionPolicy:              ptrTo(corev1.PreemptLowerPriority),
			Priority:                      ptrTo(int32(0)),
			SecurityContext:               &corev1.PodSecurityContext{RunAsNonRoot: ptrTo(true), FSGroup: ptrTo(int64(2000))},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
			},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: a.name + "-config"}, DefaultMode: ptrTo(int32(420))}}},
				{Name: "kube-api-access-" + g.hex(5), VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					DefaultMode: ptrTo(int32(420)),
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptrTo(int64(3607)), Path: "token"}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
					},
				}}},
			},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			HostIP:    "10.0." + strconv.Itoa(g.rnd.IntN(256)) + "." + strconv.Itoa(g.rnd.IntN(256)),
			PodIP:     podIP,
			PodIPs:    []corev1.PodIP{{IP: podIP}},
			StartTime: &created,
			QOSClass:  corev1.PodQOSBurstable,
		},
	}
	p.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
	for _, c := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: started})
	}
	for k, image := range a.images {
		cname := "app"
		if k > 0 {
			cname = fmt.Sprintf("sidecar-%d", k)
		}
		c := corev1.Container{
			Name:            cname,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args:            []string{"--config=/etc/app/config.yaml", "--log-level=info", "--port=" + strconv.Itoa(8080+k)},
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: int32(8080 + k), Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: int32(9090 + k), Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
			},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "config", MountPath: "/etc/app", ReadOnly: true},
				{Name: p.Spec.Volumes[1].Name, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
			},
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		}
		if k == 0 {
			// The app container; the sidecars have neither env nor probes.
			c.Env = append([]corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}, a.envs...)
			c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(int32(8080 + k)), Scheme: corev1.URISchemeHTTP}}, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
			c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(int32(8080 + k)), Scheme: corev1.URISchemeHTTP}}, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
		}
		p.Spec.Containers = append(p.Spec.Containers, c)
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:        cname,
			Image:       image,
			ImageID:     "docker.io/" + image + "@sha256:" + a.checksum,
			ContainerID: "containerd://" + g.hex(64),
			Ready:       true,
			Started:     ptrTo(true),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		})
	}
	return p
}

func (g *genRand) uid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func ptrTo[T any](v T) *T { return &v }

// managedSpec and managedStatus are the FieldsV1 of a Deployment Pod's
// two managers, as a 1.3x apiserver records them.
const (
	managedSpec   = `{"f:metadata":{"f:annotations":{".":{},"f:checksum/config":{},"f:kubectl.kubernetes.io/restartedAt":{},"f:prometheus.io/path":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/component":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:app.kubernetes.io/version":{},"f:pod-template-hash":{},"f:team":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"0\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:args":{},"f:env":{".":{},"k:{\"name\":\"POD_NAME\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:periodSeconds":{},"f:successThreshold":{},"f:timeoutSeconds":{}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:periodSeconds":{},"f:successThreshold":{},"f:timeoutSeconds":{}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/app\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{".":{},"f:fsGroup":{},"f:runAsNonRoot":{}},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}}}}}`
	managedStatus = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.0.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
)
