package prommetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kfanout/fanout/contrib/sharding"
)

func TestMetricsExposition(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg, "cms")
	require.NoError(t, err)
	r := sharding.Range{Index: 3, Count: 8}
	m.OwnedRanges(2)
	m.RangeObjects(r, 40)
	m.ClientFiltered(r, 5)
	m.ClientFiltered(r, 2)
	m.Handover(r, 300*time.Millisecond)

	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP informer_sharding_owned_ranges [ALPHA] Number of hash ranges this replica delivers.
# TYPE informer_sharding_owned_ranges gauge
informer_sharding_owned_ranges{ring="cms"} 2
# HELP informer_sharding_range_objects [ALPHA] Number of objects in an owned range's store.
# TYPE informer_sharding_range_objects gauge
informer_sharding_range_objects{range="3",ring="cms"} 40
# HELP informer_sharding_client_filtered_total [ALPHA] Objects and watch events of other ranges dropped on the client because the server does not shard.
# TYPE informer_sharding_client_filtered_total counter
informer_sharding_client_filtered_total{range="3",ring="cms"} 7
`), MetricOwnedRanges, MetricRangeObjects, MetricClientFiltered))
	assert.Equal(t, 1, testutil.CollectAndCount(m.handover))

	m.RangeObjects(r, 0)
	assert.Equal(t, 0, testutil.CollectAndCount(m.objects), "a dropped range's series is deleted")

	_, err = New(reg, "cms")
	assert.Error(t, err, "registering twice on one registry")
	_, err = New(nil, "x")
	assert.Error(t, err)
}
