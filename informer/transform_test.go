package informer

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSharedInformerDropManagedFields checks the transform end to end:
// neither handlers nor the store see managedFields.
func TestSharedInformerDropManagedFields(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		copyFirst := func(o any) (any, error) { return o.(*corev1.Pod).DeepCopy(), nil } // the source shares its objects
		require.NoError(t, inf.SetTransform(ChainTransforms(copyFirst, DropManagedFields())))
		var seen []*corev1.Pod
		_, err := inf.AddEventHandler(ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { seen = append(seen, o.(*corev1.Pod)) },
			UpdateFunc: func(_, o any) { seen = append(seen, o.(*corev1.Pod)) },
		})
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		p := siPod("a")
		p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}
		src.Modify(p)
		synctest.Wait()
		require.Len(t, seen, 3)
		for _, p := range seen {
			assert.Nil(t, p.ManagedFields)
		}
		obj, ok, err := inf.GetStore().GetByKey("ns/a")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Nil(t, obj.(*corev1.Pod).ManagedFields)
	})
}
