package ring

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

func TestConfigValidation(t *testing.T) {
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	good := testConfig(api, clk, "a", 8)
	_, err := good.complete()
	require.NoError(t, err)
	for name, mutate := range map[string]func(*Config){
		"no client":       func(c *Config) { c.Client = nil },
		"no identity":     func(c *Config) { c.Identity = "" },
		"ranges not pow2": func(c *Config) { c.Ranges = 12 },
		"bad ring label":  func(c *Config) { c.Ring = "no spaces" },
		"bad identity":    func(c *Config) { c.Identity = "UPPER" },
		"lease too short": func(c *Config) { c.LeaseDuration = 9 * time.Second },
		"negative retry":  func(c *Config) { c.RetryPeriod = -time.Second },
	} {
		c := good
		mutate(&c)
		_, err := c.complete()
		assert.Error(t, err, name)
	}
}

func TestMembershipRenewAndExpiry(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a, err := NewMembership(testConfig(api, clk, "a", 8))
	require.NoError(t, err)
	b, err := NewMembership(testConfig(api, clk, "b", 8))
	require.NoError(t, err)

	require.NoError(t, a.Renew(ctx))
	require.NoError(t, b.Renew(ctx))
	members, err := a.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, members)

	lease, err := api.CoordinationV1().Leases("ns").Get(ctx, "ring-member-a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{LabelRing: "ring", LabelRole: RoleMember}, lease.Labels)
	assert.Equal(t, int32(10), *lease.Spec.LeaseDurationSeconds)

	// b stops renewing; a keeps renewing. Just before b's lease runs out
	// (10 s after a first saw it) b is a member, at 10 s it is gone.
	for range 4 {
		clk.Step(2 * time.Second)
		require.NoError(t, a.Renew(ctx))
		members, err = a.Members(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, members)
	}
	clk.Step(1999 * time.Millisecond)
	members, err = a.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, members)
	clk.Step(time.Millisecond)
	members, err = a.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, members)

	// b comes back: live again at once.
	require.NoError(t, b.Renew(ctx))
	members, err = a.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, members)

	// Leave deletes the lease: gone at once.
	require.NoError(t, b.Leave(ctx))
	members, err = a.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, members)
}

// TestMembershipStaleLeaseOfDeadReplica: a replica that starts after
// another died sees the dead one's lease, renewed long ago by the lease's
// own renew time, as gone at once.
func TestMembershipStaleLeaseOfDeadReplica(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	dead, err := NewMembership(testConfig(api, clk, "dead", 8))
	require.NoError(t, err)
	require.NoError(t, dead.Renew(ctx))
	clk.Step(time.Minute)

	fresh, err := NewMembership(testConfig(api, clk, "fresh", 8))
	require.NoError(t, err)
	require.NoError(t, fresh.Renew(ctx))
	members, err := fresh.Members(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"fresh"}, members)
}

// TestMembershipRestartWithSameIdentity: a process that finds its own
// identity's lease (left by an earlier process) takes it over.
func TestMembershipRestartWithSameIdentity(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	first, err := NewMembership(testConfig(api, clk, "a", 8))
	require.NoError(t, err)
	require.NoError(t, first.Renew(ctx))
	second, err := NewMembership(testConfig(api, clk, "a", 8))
	require.NoError(t, err)
	clk.Step(time.Second)
	require.NoError(t, second.Renew(ctx))
	lease, err := api.CoordinationV1().Leases("ns").Get(ctx, "ring-member-a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, clk.Now().Unix(), lease.Spec.RenewTime.Unix())
}
