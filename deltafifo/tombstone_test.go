package deltafifo

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeletedFinalStateUnknown's lookalike: the right name and fields, the wrong
// package. client-go's own type is tested in contrib/clientgo.
type lookalike = struct {
	Key string
	Obj any
}

func TestAsDeletedFinalStateUnknownRecognisesOnlyTombstones(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	own := DeletedFinalStateUnknown{Key: "ns/a", Obj: cm}
	got, ok := AsDeletedFinalStateUnknown(own)
	require.True(t, ok)
	require.Equal(t, own, got)
	require.Equal(t, own, NormalizeDeleted(own))

	type DeletedFinalStateUnknown struct {
		Key string
		Obj any
	}
	for name, obj := range map[string]any{
		"object":                   cm,
		"nil":                      nil,
		"pointer to tombstone":     &own,
		"same name, other package": DeletedFinalStateUnknown{Key: "ns/a", Obj: cm},
		"anonymous struct":         lookalike{Key: "ns/a", Obj: cm},
	} {
		_, ok := AsDeletedFinalStateUnknown(obj)
		require.False(t, ok, name)
		require.Equal(t, obj, NormalizeDeleted(obj), name)
	}
}
