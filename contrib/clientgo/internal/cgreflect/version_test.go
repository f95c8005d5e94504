package cgreflect

import (
	"strings"
	"testing"
)

// TestCheckVersion accepts every release of the supported minors and
// refuses the ones around them with an error naming the range.
func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"v0.35.0", "v0.35.10", "v0.36.6", "v0.37.2", "v0.37.0-rc.1", "", "v0.0.0-20260101000000-abcdefabcdef"} {
		if err := checkVersion(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	for _, v := range []string{"v0.34.3", "v0.38.0", "v0.38.0-alpha.1", "v0.3.5"} {
		err := checkVersion(v)
		if err == nil || !strings.Contains(err.Error(), SupportedRange) || !strings.Contains(err.Error(), v) {
			t.Errorf("%q: %v", v, err)
		}
	}
}
