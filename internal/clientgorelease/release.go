// Package clientgorelease tells which client-go release the running binary
// links, for the few behaviours fanout keeps as each supported release has
// them. fanout's root module does not import client-go; it reads the
// binary's module information, so a binary without client-go gets the
// newest release's behaviour.
package clientgorelease

import (
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Linked returns the version of k8s.io/client-go linked into the running
// binary (its replacement's version when replaced by another version), or
// "" when the binary carries no module information, does not link
// client-go, or replaces it by a directory.
func Linked() string { return linked() }

var linked = sync.OnceValue(func() string {
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
	m := Minor(Linked())
	return m != 0 && m < minor
}
