package ring

import (
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// testConfig is leasetest's ring on api.
func testConfig(api *leasetest.API, clk *clocktesting.FakeClock, identity string, ranges int) Config {
	return Config(leasetest.Config(api, clk, identity, ranges))
}
