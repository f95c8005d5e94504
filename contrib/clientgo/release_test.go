package clientgo

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/clientgorelease"
)

// The minor found from client-go's API is the one the module is built with.
func TestBuiltWithMinorIsTheLinkedRelease(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/client-go: %v", err)
	}
	v := strings.TrimSpace(string(out))
	if got, want := builtWithMinor(), clientgorelease.Minor(v); got != want {
		t.Errorf("builtWithMinor = %d, the module links client-go %s", got, v)
	}
	if got := clientgorelease.LinkedMinor(); got != builtWithMinor() {
		t.Errorf("LinkedMinor = %d after init, want %d", got, builtWithMinor())
	}
}
