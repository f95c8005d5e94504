// Package doccheck holds the test that every relative link in the
// repository's README.md, CHANGELOG.md and docs/*.md resolves to a file or
// to a heading anchor in the repository.
package doccheck
