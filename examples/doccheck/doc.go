// Package doccheck holds the tests that keep the repository's README.md,
// CHANGELOG.md and docs/*.md true to the tree: every relative link
// resolves to a file or to a heading anchor; every Go block is preceded by
// a marker naming the Example test that compiles it
// (<!-- example: informer/example_test.go Example -->) and its lines are,
// in order, lines of that Example; and every Go file the guides name
// exists, with the functions named after it.
package doccheck
