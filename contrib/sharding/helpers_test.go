package sharding

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// testConfig is leasetest's ring on api.
func testConfig(api *leasetest.API, clk *clocktesting.FakeClock, identity string, ranges int) Config {
	return Config(leasetest.Config(api, clk, identity, ranges))
}

// settleRing lets the replicas of a ring on testConfig's timings settle;
// see leasetest.SettleRing.
func settleRing(clk *clocktesting.FakeClock) { leasetest.SettleRing(clk) }

// assertPartition checks that two replicas' sorted object names a and b
// are both non-empty and together are all (sorted), each name once.
func assertPartition(t *testing.T, all, a, b []string) {
	t.Helper()
	assert.NotEmpty(t, a)
	assert.NotEmpty(t, b)
	union := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
	assert.Equal(t, all, union, "the replicas partition the objects, none served twice")
}

// shardSelectorOf is options' shard selector, "" where the linked
// apimachinery has none.
func shardSelectorOf(options *metav1.ListOptions) string {
	if shardSelectorField == nil {
		return ""
	}
	return reflect.ValueOf(options).Elem().FieldByIndex(shardSelectorField).String()
}

// setShardInfo sets lm's ShardInfo to one naming selector, as a server that
// applied the selector does; only where the linked apimachinery has it.
func setShardInfo(lm *metav1.ListMeta, selector string) {
	field := reflect.ValueOf(lm).Elem().FieldByIndex(shardInfoField)
	info := reflect.New(field.Type().Elem())
	info.Elem().FieldByName("Selector").SetString(selector)
	field.Set(info)
}
