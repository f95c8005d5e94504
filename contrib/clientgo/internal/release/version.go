package release

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// SupportedRange names the client-go minors the factories were tested
// with; errors name it.
const SupportedRange = "v0.35, v0.36 and v0.37"

// supportedMinors are the client-go minor releases the factories serve,
// as version prefixes.
var supportedMinors = []string{"v0.35.", "v0.36.", "v0.37."}

// Check returns an error naming the supported range when the running
// binary links a client-go release outside it, and nil otherwise (also
// when the binary carries no module information, or links a pseudo
// version or a replaced directory: a development build).
func Check() error { return checkVersion(linkedClientGo()) }

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
// development build) passes.
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
