package clientgo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDropInTranscriptIsClientGos runs the drop-in controller in
// testdata/dropin unchanged, against client-go, and checks that it prints
// the recorded transcript that informer's TestDropIn expects from fanout.
func TestDropInTranscriptIsClientGos(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	src, err := os.ReadFile("../../testdata/dropin/main.go.txt")
	require.NoError(t, err)
	require.Contains(t, string(src), `"k8s.io/client-go/tools/cache"`)
	main := filepath.Join(t.TempDir(), "main.go")
	require.NoError(t, os.WriteFile(main, src, 0o600))

	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "run", main)
	cmd.Dir = "."
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())

	want, err := os.ReadFile("../../testdata/dropin/expected.txt")
	require.NoError(t, err)
	require.Equal(t, string(want), stdout.String())
}
