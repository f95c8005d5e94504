package release

import (
	"fmt"
	"strings"

	"github.com/kfanout/fanout/internal/clientgorelease"
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
func Check() error { return checkVersion(clientgorelease.ModuleVersion()) }

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
