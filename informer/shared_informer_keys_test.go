package informer

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestSharedInformerTransformChangesKey checks that a transform that changes
// an object's key stores it under the transformed key with both queues:
// DeltaFIFO keys an object before the transform, so its keys must not be
// used for the store, while RealFIFO keys it after.
func TestSharedInformerTransformChangesKey(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		require.NoError(t, inf.SetTransform(func(o any) (any, error) {
			p, ok := o.(*corev1.Pod)
			if !ok {
				return o, nil // a tombstone
			}
			p = p.DeepCopy()
			p.Name += "-t"
			return p, nil
		}))
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		assert.ElementsMatch(t, []string{"ns/a-t", "ns/b-t"}, inf.GetStore().ListKeys())
		src.Modify(siPod("a", "x"))
		synctest.Wait()
		assert.ElementsMatch(t, []string{"ns/a-t", "ns/b-t"}, inf.GetStore().ListKeys())
		assert.Equal(t, []string{
			"add ns/a-t@1 initial=true", "add ns/b-t@2 initial=true",
			"update ns/a-t@1 -> ns/a-t@3[x]",
		}, rec.take())
	})
}
