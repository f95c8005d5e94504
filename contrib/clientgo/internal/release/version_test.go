package release

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/clientgorelease"
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

// TestLinkedClientGoSupported fails when the module is built with a
// client-go outside the supported range: whoever adds a minor runs the
// factories' tests on it (make compat), then extends supportedMinors and
// SupportedRange.
func TestLinkedClientGoSupported(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/client-go: %v", err)
	}
	v := strings.TrimSpace(string(out))
	if err := checkVersion(v); err != nil {
		t.Fatal(err)
	}
	if got := clientgorelease.ModuleVersion(); got != "" && got != v {
		t.Errorf("the test binary links client-go %s, go list says %s", got, v)
	}
	if err := Check(); err != nil {
		t.Fatal(err)
	}
}
