package clientgo

import (
	"fmt"
	"sync"

	clientfeatures "k8s.io/client-go/features"

	"github.com/kfanout/fanout/internal/features"
)

// FollowClientGoFeatureGates makes every client-go feature gate that the
// program sets from now on (clientfeatures.FeatureGates().Set, or
// k8s.io/client-go/features/testing.SetFeatureDuringTest) apply to fanout
// too. fanout reads its gates from the KUBE_FEATURE_<name> environment
// variables client-go reads, with client-go's defaults; a gate set in code
// on client-go's registry is otherwise invisible to it. Gates never set
// keep fanout's value; from its first Set on, fanout follows client-go's
// value of a gate, also after SetFeatureDuringTest restores it. It replaces client-go's registry with a wrapper over the
// current one, once per process; later calls do nothing. It panics if
// client-go's registry cannot be set (it was replaced by one without Set).
func FollowClientGoFeatureGates() {
	followOnce.Do(func() {
		inner, ok := clientfeatures.FeatureGates().(gateSetter)
		if !ok {
			panic(fmt.Sprintf("clientgo: client-go's feature gates %T cannot be set", clientfeatures.FeatureGates()))
		}
		clientfeatures.ReplaceFeatureGates(&followedGates{inner: inner})
	})
}

var followOnce sync.Once

// gateSetter is client-go's registry as features/testing uses it.
type gateSetter interface {
	clientfeatures.Gates
	Set(clientfeatures.Feature, bool) error
}

// followedGates forwards to client-go's registry and mirrors every
// successful Set into fanout's gates.
type followedGates struct {
	inner gateSetter
}

func (g *followedGates) Enabled(key clientfeatures.Feature) bool { return g.inner.Enabled(key) }

func (g *followedGates) Set(key clientfeatures.Feature, value bool) error {
	if err := g.inner.Set(key, value); err != nil {
		return err
	}
	features.Set(string(key), value)
	return nil
}

// SetForTesting is Set through the registry's test hook, when it has one
// (it accepts gates that Set refuses, such as locked ones).
func (g *followedGates) SetForTesting(key clientfeatures.Feature, value bool) error {
	t, ok := g.inner.(interface {
		SetForTesting(clientfeatures.Feature, bool) error
	})
	if !ok {
		return g.Set(key, value)
	}
	if err := t.SetForTesting(key, value); err != nil {
		return err
	}
	features.Set(string(key), value)
	return nil
}
