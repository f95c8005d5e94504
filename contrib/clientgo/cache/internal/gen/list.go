package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// identifier is one line of testdata/identifiers.txt: an exported
// identifier of client-go's tools/cache, its kind and the supported
// releases that export it.
type identifier struct {
	name     string
	kind     string
	releases []string
}

// list is testdata/identifiers.txt: the supported releases and every
// identifier any of them exports.
type list struct {
	releases    []string
	identifiers []identifier
}

// common returns the identifiers every supported release exports, which
// are the ones the package exports.
func (l list) common() []identifier {
	var out []identifier
	for _, id := range l.identifiers {
		if len(id.releases) == len(l.releases) {
			out = append(out, id)
		}
	}
	return out
}

// lookup returns the identifier called name.
func (l list) lookup(name string) (identifier, bool) {
	for _, id := range l.identifiers {
		if id.name == name {
			return id, true
		}
	}
	return identifier{}, false
}

const releasesPrefix = "# releases:"

// buildList merges the identifiers of each release (scanned from its
// source) into a list.
func buildList(releases []string, scans []map[string]decl) list {
	l := list{releases: releases}
	seen := map[string]*identifier{}
	var order []string
	for i, scan := range scans {
		for _, name := range sortedNames(scan) {
			id, ok := seen[name]
			if !ok {
				id = &identifier{name: name, kind: scan[name].kind}
				seen[name] = id
				order = append(order, name)
			}
			id.releases = append(id.releases, releases[i])
		}
	}
	slices.Sort(order)
	for _, n := range order {
		l.identifiers = append(l.identifiers, *seen[n])
	}
	return l
}

// write prints l in the identifiers.txt format: a header naming the
// releases, then one "kind name release..." line per identifier.
func (l list) write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Exported identifiers of k8s.io/client-go/tools/cache in each supported\n")
	b.WriteString("# release; regenerate with `go run ./internal/gen -list` (see gen.go).\n")
	b.WriteString("# The package exports the ones every release has.\n")
	fmt.Fprintf(&b, "%s %s\n", releasesPrefix, strings.Join(l.releases, " "))
	for _, id := range l.identifiers {
		fmt.Fprintf(&b, "%s %s %s\n", id.kind, id.name, strings.Join(id.releases, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// readList parses the identifiers.txt format.
func readList(r io.Reader) (list, error) {
	var l list
	s := bufio.NewScanner(r)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if rest, ok := strings.CutPrefix(line, releasesPrefix); ok {
			l.releases = strings.Fields(rest)
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return list{}, fmt.Errorf("identifiers: malformed line %q", line)
		}
		l.identifiers = append(l.identifiers, identifier{kind: f[0], name: f[1], releases: f[2:]})
	}
	if err := s.Err(); err != nil {
		return list{}, err
	}
	if len(l.releases) == 0 {
		return list{}, fmt.Errorf("identifiers: no %q line", releasesPrefix)
	}
	return l, nil
}
