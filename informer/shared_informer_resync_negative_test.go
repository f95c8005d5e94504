package informer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A negative resync period is accepted, as in client-go, and then resyncs
// at the informer's resync check period (client-go raises any period below
// the check period to it), or never when the informer does not resync.
func TestSharedInformerNegativeResyncPeriod(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		for _, tc := range []struct {
			name        string
			defaultSync time.Duration
			want        []string
		}{
			{"check period 30s", 30 * time.Second, []string{
				"update ns/a@1 -> ns/a@1", "update ns/b@2 -> ns/b@2", "update ns/a@1 -> ns/a@1", "update ns/b@2 -> ns/b@2"}},
			{"no resync", 0, nil},
		} {
			_, inf := siSetup(SharedIndexInformerOptions{ResyncPeriod: tc.defaultSync, InOrder: queueOption(inOrder)})
			rec := &siRecorder{}
			reg, err := inf.AddEventHandlerWithResyncPeriod(rec, -time.Second)
			require.NoError(t, err, tc.name)
			require.NotNil(t, reg, tc.name)
			stop := siRun(t, inf)
			time.Sleep(time.Second)
			require.True(t, inf.HasSynced(), tc.name)
			assert.Len(t, rec.take(), 2, tc.name) // the initial adds
			time.Sleep(60 * time.Second)
			stop()
			got := rec.take()
			assert.ElementsMatch(t, tc.want, got, tc.name)
		}
	})
}
