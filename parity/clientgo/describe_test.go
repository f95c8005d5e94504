package parity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// describeObj is "ns/name rv=N".
func describeObj(obj any) string {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return fmt.Sprintf("unexpected %T", obj)
	}
	return fmt.Sprintf("%s/%s rv=%s", cm.Namespace, cm.Name, cm.ResourceVersion)
}

func rvOf(obj any) string {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		return cm.ResourceVersion
	}
	return fmt.Sprintf("unexpected %T", obj)
}

func keyOf(obj any) string {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		return cm.Namespace + "/" + cm.Name
	}
	return fmt.Sprintf("unexpected %T", obj)
}

func describeAdd(obj any, initial bool) string {
	return fmt.Sprintf("add %s initial=%t", describeObj(obj), initial)
}

func describeUpdate(oldObj, newObj any) string {
	return fmt.Sprintf("update %s %s->%s", keyOf(newObj), rvOf(oldObj), rvOf(newObj))
}

// describeDelete names tombstones by their type, so a fanout tombstone
// leaking through the adapter is told apart from client-go's.
func describeDelete(obj any) string {
	switch t := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		return fmt.Sprintf("delete %s tombstone(rv=%s)", t.Key, rvOf(t.Obj))
	case informer.DeletedFinalStateUnknown:
		return fmt.Sprintf("delete %s fanout-tombstone(rv=%s)", t.Key, rvOf(t.Obj))
	}
	return "delete " + describeObj(obj)
}
