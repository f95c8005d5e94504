package parity

import (
	"go/token"
	"go/types"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kfanout/fanout/internal/clientgorelease"
)

const (
	clientGoCachePath = "k8s.io/client-go/tools/cache"
	fanoutInformer    = "github.com/kfanout/fanout/informer"
	fanoutModule      = "github.com/kfanout/fanout"
)

// inventoryAllowed lists the entries of client-go's tools/cache that
// fanout's informer package deliberately lacks or has with another
// signature, each with the reason. The keys are the entry names that
// TestAPIInventory prints; an allowed entry that no longer differs fails
// the test too, so the list cannot go stale.
var inventoryAllowed = map[string]string{
	// client-go's Getter returns its own *rest.Request, which the root
	// module cannot name (it may not import client-go). fanout's Getter is
	// generic over the request type, so that client-go's rest.Interface
	// (and every typed clientset's RESTClient()) satisfies Getter[*rest.Request]
	// and the calls below compile unchanged by type inference.
	"type Getter":                         "generic over the request type: Getter[R]",
	"method Getter.Get":                   "returns the type parameter R (client-go: *rest.Request)",
	"func NewListWatchFromClient":         "generic over Getter[R]; a call with a rest.Interface infers R",
	"func NewFilteredListWatchFromClient": "generic over Getter[R]; a call with a rest.Interface infers R",
}

// TestAPIInventory fails on any name that client-go v0.37.2's tools/cache
// exports and fanout's informer package lacks, or exports with another
// kind or signature, apart from inventoryAllowed. Types are compared
// modulo the package they live in: a client-go cache.Store in client-go
// matches a fanout Store (or deltafifo/listener type re-exported by alias).
func TestAPIInventory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds export data for two packages")
	}
	if clientgorelease.Before(37) {
		t.Skipf("the informer package carries client-go v0.37's API, a superset of the linked v0.%d's", clientgorelease.LinkedMinor())
	}
	cg, fo := loadInventoryPackages(t)
	diffs := inventoryDiff(cg, fo)
	seen := map[string]bool{}
	var unexpected []string
	for _, d := range diffs {
		seen[d.entry] = true
		if _, ok := inventoryAllowed[d.entry]; !ok {
			unexpected = append(unexpected, d.String())
		}
	}
	for entry := range inventoryAllowed {
		if !seen[entry] {
			t.Errorf("allow-list entry %q no longer differs; remove it", entry)
		}
	}
	slices.Sort(unexpected)
	if len(unexpected) > 0 {
		t.Errorf("%d differences from client-go %s:\n%s", len(unexpected), clientGoCachePath, strings.Join(unexpected, "\n"))
	}
}

// loadInventoryPackages imports both packages from the go command's
// export data (standard library only: go list -export plus go/importer).
func loadInventoryPackages(t *testing.T) (clientGo, fanout *types.Package) {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	imp := exportImporter(token.NewFileSet(), exportData(t, ".", gobin, []string{clientGoCachePath, fanoutInformer}))
	clientGo, err := imp.Import(clientGoCachePath)
	if err != nil {
		t.Fatal(err)
	}
	fanout, err = imp.Import(fanoutInformer)
	if err != nil {
		t.Fatal(err)
	}
	return clientGo, fanout
}
