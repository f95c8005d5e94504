package informer

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// storePod returns a pod with the given identity, resource version and
// labels.
func storePod(ns, name, rv string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, Labels: labels}}
}

// storeSorted returns a sorted copy of s, never nil.
func storeSorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// podKeys returns the sorted "ns/name" of objs, which must be pods.
func podKeys(objs []any) []string {
	out := []string{}
	for _, o := range objs {
		p := o.(*corev1.Pod)
		out = append(out, p.Namespace+"/"+p.Name)
	}
	sort.Strings(out)
	return out
}

// labelIndexFunc indexes a pod by the values of its "tier" label, which
// holds comma-separated values; a pod with label "fail" makes it fail.
func labelIndexFunc(obj any) ([]string, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, errNotPod
	}
	if _, bad := p.Labels["fail"]; bad {
		return nil, errIndexFailed
	}
	tier := p.Labels["tier"]
	if tier == "" {
		return nil, nil
	}
	var out []string
	start := 0
	for i := 0; i <= len(tier); i++ {
		if i == len(tier) || tier[i] == ',' {
			out = append(out, tier[start:i])
			start = i + 1
		}
	}
	return out, nil
}

type storeTestError string

func (e storeTestError) Error() string { return string(e) }

const (
	errNotPod      = storeTestError("not a pod")
	errIndexFailed = storeTestError("index failed")
)
