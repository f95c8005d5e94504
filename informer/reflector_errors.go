package informer

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// errStopRequested ends a watch because the reflector's context is done.
var errStopRequested = errors.New("stop requested")

// isExpiredError reports a 410: servers before 1.18 said Gone, later ones
// say Expired.
func isExpiredError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isTooLargeResourceVersionError reports that the server has not yet seen
// the requested resource version, in the forms servers have used for it.
func isTooLargeResourceVersionError(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	// 1.17.0-1.18.5 sent a timeout with a cause message; older servers
	// put the text in the status message.
	if !apierrors.IsTimeout(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status == nil {
		return false
	}
	s := status.Status()
	if s.Details != nil {
		for _, cause := range s.Details.Causes {
			if cause.Message == "Too large resource version" {
				return true
			}
		}
	}
	return strings.Contains(s.Message, "Too large resource version")
}

// isWatchErrorRetriable reports errors worth re-watching after a backoff,
// without a relist: the server is unreachable or overloaded, and the watch
// can most likely resume where it stopped.
func isWatchErrorRetriable(err error) bool {
	return utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err)
}

// tableGVKs are the Table kinds a reflector cannot store.
var tableGVKs = map[schema.GroupVersionKind]bool{
	metav1beta1.SchemeGroupVersion.WithKind("Table"): true,
	metav1.SchemeGroupVersion.WithKind("Table"):      true,
}

// isTableObject reports an Unstructured Table, which a reflector drops.
func isTableObject(obj runtime.Object) bool {
	u, ok := obj.(*unstructured.Unstructured)
	return ok && u.GetKind() == "Table" && tableGVKs[obj.GetObjectKind().GroupVersionKind()]
}

// isTableList reports an UnstructuredList of Tables, and its GVK.
func isTableList(obj runtime.Object) (bool, schema.GroupVersionKind) {
	u, ok := obj.(*unstructured.UnstructuredList)
	if !ok {
		return false, schema.GroupVersionKind{}
	}
	gvk := u.GetObjectKind().GroupVersionKind()
	return tableGVKs[gvk], gvk
}
