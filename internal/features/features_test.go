package features

import (
	"testing"

	"github.com/kfanout/fanout/internal/clientgorelease"
)

// The gates client-go v0.35 lacks default to off when v0.35 is linked, and
// to on with v0.36, v0.37 or no client-go; the others keep their default.
func TestDefaultFollowsTheLinkedRelease(t *testing.T) {
	defer clientgorelease.Use(0)
	for _, tc := range []struct {
		minor int
		want  map[string]bool
	}{
		{35, map[string]bool{AtomicFIFO: false, UnlockWhileProcessingFIFO: false, InOrderInformers: true, WatchListClient: true, InOrderInformersBatchProcess: true}},
		{36, map[string]bool{AtomicFIFO: true, UnlockWhileProcessingFIFO: true, InOrderInformers: true}},
		{37, map[string]bool{AtomicFIFO: true, UnlockWhileProcessingFIFO: true}},
		{0, map[string]bool{AtomicFIFO: true, UnlockWhileProcessingFIFO: true}},
	} {
		clientgorelease.Use(tc.minor)
		for name, want := range tc.want {
			if got := Default(name); got != want {
				t.Errorf("v0.%d linked: Default(%s) = %t, want %t", tc.minor, name, got, want)
			}
			if got := Enabled(name); got != want {
				t.Errorf("v0.%d linked: Enabled(%s) = %t, want %t", tc.minor, name, got, want)
			}
		}
	}
}

// A gate set in the environment wins over the release's default.
func TestEnvironmentWinsOverTheRelease(t *testing.T) {
	defer clientgorelease.Use(0)
	clientgorelease.Use(35)
	t.Setenv("KUBE_FEATURE_AtomicFIFO", "true")
	if !Enabled(AtomicFIFO) {
		t.Errorf("KUBE_FEATURE_AtomicFIFO=true with v0.35 linked: Enabled = false")
	}
}
