package clientgo

import (
	"testing"

	clientfeatures "k8s.io/client-go/features"

	"github.com/kfanout/fanout/internal/features"
)

// TestFeatureGateDefaultsAreClientGos checks that every gate fanout reads
// has the value client-go's registry gives it (both read the same
// KUBE_FEATURE_<name> variables over their defaults). A gate the linked
// client-go does not know yet (AtomicFIFO and UnlockWhileProcessingFIFO
// before v0.36) must be off: that release has none of its behaviour.
func TestFeatureGateDefaultsAreClientGos(t *testing.T) {
	for _, name := range features.Names() {
		client, known := clientGoGate(name)
		if !known {
			// The release predates the gate: it has none of the behaviour
			// the gate turns on.
			if features.Enabled(name) {
				t.Errorf("%s: unknown to the linked client-go, yet on in fanout", name)
			}
			continue
		}
		if got := features.Enabled(name); got != client {
			t.Errorf("%s: fanout %v, client-go %v", name, got, client)
		}
	}
}

// clientGoGate returns client-go's value of a gate, and whether its
// registry knows the gate (Enabled panics on an unknown one).
func clientGoGate(name string) (enabled, known bool) {
	defer func() {
		if recover() != nil {
			enabled, known = false, false
		}
	}()
	return clientfeatures.FeatureGates().Enabled(clientfeatures.Feature(name)), true
}
