package prommetrics_test

import (
	"fmt"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/contrib/sharding"
	"github.com/kfanout/fanout/contrib/sharding/prommetrics"
)

// A replica publishes its ring's figures by passing the Metrics as
// sharding.Options.Metrics; here they are fed by hand, as the sharded
// informer would after taking two ranges.
func Example() {
	reg := prom.NewRegistry()
	m, err := prommetrics.New(reg, "configmaps")
	if err != nil {
		fmt.Println(err)
		return
	}
	var _ sharding.Metrics = m // sharding.Options{Metrics: m, ...}

	m.OwnedRanges(2)
	m.RangeObjects(sharding.Range{Index: 3, Count: 8}, 40)
	families, _ := reg.Gather()
	for _, f := range families {
		for _, s := range f.GetMetric() {
			fmt.Println(f.GetName(), s.GetGauge().GetValue())
		}
	}
	// Output:
	// informer_sharding_owned_ranges 2
	// informer_sharding_range_objects 40
}
