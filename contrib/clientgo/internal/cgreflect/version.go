package cgreflect

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// supportedMinors are the client-go minor releases this package reads, as
// version prefixes.
var supportedMinors = []string{"v0.35.", "v0.36.", "v0.37."}

// linkedClientGo returns the version of k8s.io/client-go linked into the
// running binary, or "" when the binary carries no module information or
// client-go is replaced by a directory.
func linkedClientGo() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range info.Deps {
		if m.Path != "k8s.io/client-go" {
			continue
		}
		if m.Replace != nil {
			return m.Replace.Version
		}
		return m.Version
	}
	return ""
}

// checkVersion returns an error naming the supported range when version is
// a client-go release outside it. An empty or pseudo version (a
// development build) is left to the layout check.
func checkVersion(version string) error {
	if version == "" || !strings.HasPrefix(version, "v0.") || strings.Count(version, "-") > 1 {
		return nil
	}
	for _, m := range supportedMinors {
		if strings.HasPrefix(version, m) {
			return nil
		}
	}
	return fmt.Errorf("fanout: the factories of contrib/clientgo support client-go %s; this binary links client-go %s", SupportedRange, version)
}
