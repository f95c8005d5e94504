package informer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	clocktesting "k8s.io/utils/clock/testing"
)

// newTestTTLStore returns a TTL store on a fake clock that reports the
// keys it deletes on expiry.
func newTestTTLStore(ttl time.Duration) (Store, *clocktesting.FakeClock, chan string) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	deleted := make(chan string, 10)
	s := NewFakeExpirationStore(MetaNamespaceKeyFunc, deleted, &TTLPolicy{TTL: ttl, Clock: clk}, clk)
	return s, clk, deleted
}

// drain returns the keys sent so far.
func drainKeys(ch chan string) []string {
	out := []string{}
	for {
		select {
		case k := <-ch:
			out = append(out, k)
		default:
			return out
		}
	}
}

func TestTTLStoreExpiresOnRead(t *testing.T) {
	s, clk, deleted := newTestTTLStore(time.Minute)
	require.NoError(t, s.Add(storePod("ns", "a", "1", nil)))

	clk.Step(time.Minute) // age == TTL: not expired yet
	_, exists, err := s.GetByKey("ns/a")
	require.NoError(t, err)
	assert.True(t, exists)
	assert.Empty(t, drainKeys(deleted))

	clk.Step(time.Nanosecond)
	assert.Equal(t, []string{"ns/a"}, s.ListKeys(), "expiry is lazy")
	_, exists, err = s.Get(storePod("ns", "a", "", nil))
	require.NoError(t, err)
	assert.False(t, exists)
	assert.Equal(t, []string{"ns/a"}, drainKeys(deleted))
	assert.Empty(t, s.ListKeys())
}

func TestTTLStoreUpdateRenews(t *testing.T) {
	s, clk, deleted := newTestTTLStore(time.Minute)
	require.NoError(t, s.Add(storePod("ns", "a", "1", nil)))
	clk.Step(50 * time.Second)
	require.NoError(t, s.Update(storePod("ns", "a", "2", nil)))
	clk.Step(50 * time.Second)
	item, exists, _ := s.GetByKey("ns/a")
	require.True(t, exists)
	assert.Equal(t, "2", item.(*corev1.Pod).ResourceVersion)
	assert.Empty(t, drainKeys(deleted))
}

func TestTTLStoreListPurges(t *testing.T) {
	s, clk, deleted := newTestTTLStore(time.Minute)
	require.NoError(t, s.Add(storePod("ns", "old", "1", nil)))
	clk.Step(40 * time.Second)
	require.NoError(t, s.Add(storePod("ns", "new", "2", nil)))
	clk.Step(40 * time.Second)

	assert.Equal(t, []string{"ns/new"}, podKeys(s.List()))
	assert.Equal(t, []string{"ns/old"}, drainKeys(deleted))
	assert.Equal(t, []string{"ns/new"}, s.ListKeys())
}

func TestTTLStoreReplaceDeleteAndRV(t *testing.T) {
	s, clk, _ := newTestTTLStore(time.Minute)
	require.NoError(t, s.Add(storePod("ns", "a", "1", nil)))
	require.NoError(t, s.Replace([]any{storePod("ns", "b", "2", nil), storePod("ns", "c", "3", nil)}, "7"))
	assert.Equal(t, "7", s.LastStoreSyncResourceVersion())
	assert.Equal(t, []string{"ns/b", "ns/c"}, storeSorted(s.ListKeys()))

	require.NoError(t, s.Delete(storePod("ns", "b", "9", nil)))
	assert.Equal(t, "9", s.LastStoreSyncResourceVersion())
	s.Bookmark("10")
	assert.Equal(t, "10", s.LastStoreSyncResourceVersion())
	assert.NoError(t, s.Resync())

	clk.Step(2 * time.Minute)
	assert.Empty(t, s.List())

	err := s.Add("no meta")
	var ke KeyError
	assert.ErrorAs(t, err, &ke)
	_, _, err = s.Get("no meta")
	assert.ErrorAs(t, err, &ke)
	assert.ErrorAs(t, s.Delete("no meta"), &ke)
	assert.ErrorAs(t, s.Replace([]any{"no meta"}, ""), &ke)
}

func TestTTLPolicy(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	entry := &TimestampedEntry{Obj: 1, Timestamp: clk.Now()}
	tests := []struct {
		ttl  time.Duration
		age  time.Duration
		want bool
	}{
		{ttl: time.Second, age: 0, want: false},
		{ttl: time.Second, age: time.Second, want: false},
		{ttl: time.Second, age: time.Second + 1, want: true},
		{ttl: 0, age: time.Hour, want: false},
		{ttl: -1, age: time.Hour, want: false},
	}
	for _, tc := range tests {
		c := clocktesting.NewFakeClock(entry.Timestamp.Add(tc.age))
		p := &TTLPolicy{TTL: tc.ttl, Clock: c}
		assert.Equal(t, tc.want, p.IsExpired(entry), "ttl=%v age=%v", tc.ttl, tc.age)
	}

	ttl := NewTTLStore(MetaNamespaceKeyFunc, time.Hour)
	require.NoError(t, ttl.Add(storePod("ns", "a", "1", nil)))
	_, exists, _ := ttl.GetByKey("ns/a")
	assert.True(t, exists)
}

func TestFakeExpirationPolicy(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	policy := &FakeExpirationPolicy{
		NeverExpire: sets.New("ns/keep"),
		RetrieveKeyFunc: func(obj any) (string, error) {
			return MetaNamespaceKeyFunc(obj.(*TimestampedEntry).Obj)
		},
	}
	s := NewFakeExpirationStore(MetaNamespaceKeyFunc, nil, policy, clk)
	require.NoError(t, s.Add(storePod("ns", "keep", "1", nil)))
	require.NoError(t, s.Add(storePod("ns", "drop", "2", nil)))
	assert.Equal(t, []string{"ns/keep"}, podKeys(s.List()))
	assert.Equal(t, []string{"ns/keep"}, s.ListKeys())
}
