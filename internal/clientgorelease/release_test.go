package clientgorelease

import (
	"runtime/debug"
	"testing"
)

func TestMinor(t *testing.T) {
	for v, want := range map[string]int{
		"v0.35.4": 35, "v0.36.0": 36, "v0.37.2-rc.1": 37, "": 0, "(devel)": 0,
		"v1.2.3": 0, "v0.x.1": 0, "v0.38.0-alpha.0.20260101-abcdef": 38,
	} {
		if got := Minor(v); got != want {
			t.Errorf("Minor(%q) = %d, want %d", v, got, want)
		}
	}
}

func TestVersionIn(t *testing.T) {
	deps := []*debug.Module{{Path: "k8s.io/api", Version: "v0.36.3"}, {Path: "k8s.io/client-go", Version: "v0.35.4"}}
	if got := versionIn(deps); got != "v0.35.4" {
		t.Errorf("versionIn = %q, want v0.35.4", got)
	}
	deps[1].Replace = &debug.Module{Path: "k8s.io/client-go", Version: "v0.37.2"}
	if got := versionIn(deps); got != "v0.37.2" {
		t.Errorf("versionIn with a replacement = %q, want v0.37.2", got)
	}
	deps[1].Replace = &debug.Module{Path: "../client-go"}
	if got := versionIn(deps); got != "" {
		t.Errorf("versionIn with a directory replacement = %q, want empty", got)
	}
	if got := versionIn(deps[:1]); got != "" {
		t.Errorf("versionIn without client-go = %q, want empty", got)
	}
}

func TestUseWinsOverModuleInformation(t *testing.T) {
	defer Use(0)
	Use(35)
	if got := LinkedMinor(); got != 35 {
		t.Fatalf("LinkedMinor after Use(35) = %d", got)
	}
	if !Before(36) || Before(35) {
		t.Errorf("Before(36) = %t, Before(35) = %t with v0.35 linked", Before(36), Before(35))
	}
	Use(0)
	if got, want := LinkedMinor(), Minor(ModuleVersion()); got != want {
		t.Errorf("LinkedMinor without Use = %d, want the module information's %d", got, want)
	}
}
