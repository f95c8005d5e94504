// Package tools pins the development tools of fanout's make targets as
// tool directives of this module (go tool -modfile=hack/tools/go.mod NAME).
// No module of the library requires it, so users never download them.
package tools
