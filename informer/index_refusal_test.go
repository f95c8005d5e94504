package informer

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/internal/fakelw"
)

// refuseLabelled is an index function that refuses pods labelled "bad".
func refuseLabelled(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Labels["l"] == "bad" {
		return nil, errors.New("refused")
	}
	return []string{"x"}, nil
}

func storedNames(inf SharedIndexInformer) []string {
	names := inf.GetStore().ListKeys()
	sort.Strings(names)
	return names
}

// An initial list item refused by an index function is the only one lost:
// the rest of the list is stored and delivered, and the informer syncs.
func TestIndexRefusalKeepsRestOfInitialList(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		src.Add(siPod("b", "bad"))
		src.Add(siPod("c"))
		inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{
			InOrder: queueOption(inOrder), Indexers: Indexers{"refuse": refuseLabelled}})
		rec := &siRecorder{}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		stop := siRun(t, inf)
		time.Sleep(time.Second)
		assert.True(t, inf.HasSynced())
		assert.Equal(t, []string{"ns/a", "ns/c"}, storedNames(inf))
		assert.ElementsMatch(t, []string{"add ns/a@1 initial=true", "add ns/c@3 initial=true"}, rec.take())
		stop()
	})
}
