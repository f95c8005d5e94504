// Package clientgorelease tells which client-go release the running binary
// links, for the few behaviours fanout keeps as each supported release has
// them. fanout's root module does not import client-go: contrib/clientgo,
// which does, reports the release it was built with (Use), and otherwise
// the binary's module information tells. A binary without client-go gets
// the newest release's behaviour.
package clientgorelease

import (
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

var used atomic.Int32

// Use records the minor release of the client-go that a package linking
// it was built with. contrib/clientgo calls it at init, from client-go's
// API; it wins over the module information, which test binaries lack.
func Use(minor int) { used.Store(int32(minor)) }

// LinkedMinor returns the minor release of the linked client-go: the one
// Use recorded, else the module information's, else 0 (unknown).
func LinkedMinor() int {
	if m := used.Load(); m != 0 {
		return int(m)
	}
	return Minor(ModuleVersion())
}

// ModuleVersion returns the version of k8s.io/client-go in the running
// binary's module information (its replacement's version when replaced by
// another version), or "" when the binary carries none (test binaries),
// does not link client-go, or replaces it by a directory.
func ModuleVersion() string { return moduleVersion() }

var moduleVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return versionIn(info.Deps)
})

// versionIn returns client-go's version among a binary's dependencies.
func versionIn(deps []*debug.Module) string {
	for _, m := range deps {
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

// Minor returns the minor release of a client-go version: 35 for v0.35.4,
// and 0 for "" or anything that is not a v0.N release.
func Minor(version string) int {
	rest, ok := strings.CutPrefix(version, "v0.")
	if !ok {
		return 0
	}
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	if err != nil {
		return 0
	}
	return n
}

// Before reports whether the binary links a client-go release older than
// v0.<minor>. It is false when no release is known, so that fanout alone
// behaves as the newest release.
func Before(minor int) bool {
	m := LinkedMinor()
	return m != 0 && m < minor
}
