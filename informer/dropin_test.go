package informer

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDropIn compiles a controller written against client-go's cache
// package with only its import switched to this package, runs it, and
// compares its transcript with the one client-go produces (recorded in
// testdata/dropin/expected.txt and re-checked against client-go by
// contrib/clientgo's TestDropInTranscriptIsClientGos).
func TestDropIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	src, err := os.ReadFile("../testdata/dropin/main.go.txt")
	require.NoError(t, err)
	const from = `"k8s.io/client-go/tools/cache"`
	require.Contains(t, string(src), from)
	prog := strings.Replace(string(src), from, `cache "github.com/kfanout/fanout/informer"`, 1)
	dir := t.TempDir()
	main := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(main, []byte(prog), 0o600))

	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "run", "-race", main)
	cmd.Dir = ".."
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())

	want, err := os.ReadFile("../testdata/dropin/expected.txt")
	require.NoError(t, err)
	require.Equal(t, string(want), stdout.String())
}
