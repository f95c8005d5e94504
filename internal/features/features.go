// Package features reads the feature gates that change informer behaviour,
// from the same environment variables client-go reads
// (KUBE_FEATURE_<Name>=true|false), with client-go's defaults.
package features

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/kfanout/fanout/internal/clientgorelease"
)

// Gate names, as client-go spells them.
const (
	// InOrderInformers feeds the shared informer from RealFIFO instead of
	// DeltaFIFO. On by default, as in client-go v0.35 (beta) and v0.36+
	// (GA, where client-go locks it on; fanout still honours false).
	InOrderInformers = "InOrderInformers"
	// AtomicFIFO makes RealFIFO's Replace and Resync single deltas. On by
	// default from client-go v0.36 (beta); v0.35 has no such gate, and
	// with v0.35 linked it is off.
	AtomicFIFO = "AtomicFIFO"
	// UnlockWhileProcessingFIFO lets RealFIFO drop its lock while
	// processing. As AtomicFIFO: from v0.36, off with v0.35 linked.
	UnlockWhileProcessingFIFO = "UnlockWhileProcessingFIFO"
	// InOrderInformersBatchProcess pops RealFIFO in batches.
	InOrderInformersBatchProcess = "InOrderInformersBatchProcess"
	// WatchListClient makes the reflector stream the initial list over a
	// watch. On by default, as in client-go v0.35+ (beta).
	WatchListClient = "WatchListClient"
	// InformerResourceVersion exposes the last synced resource version.
	InformerResourceVersion = "InformerResourceVersion"
)

var defaults = map[string]bool{
	InOrderInformers:             true,
	AtomicFIFO:                   true,
	UnlockWhileProcessingFIFO:    true,
	InOrderInformersBatchProcess: true,
	WatchListClient:              true,
	InformerResourceVersion:      true,
}

// introducedIn gives, for a gate that an older supported client-go release
// lacks, the first minor that has it. Linked with an older release, the
// gate defaults to off: that release has none of the behaviour it names.
var introducedIn = map[string]int{
	AtomicFIFO:                36,
	UnlockWhileProcessingFIFO: 36,
}

// Names returns every gate fanout reads, sorted.
func Names() []string { return slices.Sorted(maps.Keys(defaults)) }

// Default returns a gate's value when neither the environment nor a test
// sets it: client-go's default in the linked release (the newest's when no
// client-go is linked).
func Default(name string) bool {
	if minor, ok := introducedIn[name]; ok && clientgorelease.Before(minor) {
		return false
	}
	return defaults[name]
}

var (
	mu        sync.RWMutex
	overrides = map[string]bool{}
)

// Enabled reports whether the named gate is on: a test override first, then
// the environment variable KUBE_FEATURE_<name>, then fanout's default.
// Unknown names are off.
func Enabled(name string) bool {
	mu.RLock()
	v, ok := overrides[name]
	mu.RUnlock()
	if ok {
		return v
	}
	if s, ok := os.LookupEnv("KUBE_FEATURE_" + name); ok {
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return Default(name)
}

// SetForTesting overrides a gate and returns a function that restores it.
// Tests that use it must not run in parallel with others that read the gate.
func SetForTesting(name string, value bool) (restore func()) {
	mu.Lock()
	old, had := overrides[name]
	overrides[name] = value
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if had {
			overrides[name] = old
		} else {
			delete(overrides, name)
		}
	}
}
