package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's top directory, seen from this package.
const repoRoot = "../.."

var (
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRe = regexp.MustCompile("(?m)^#{1,6} +(.+?) *$")
	fenceRe   = regexp.MustCompile("(?ms)^```.*?^```")
	dropRe    = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchor is the GitHub anchor of a heading's text.
func anchor(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = dropRe.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// anchors returns the heading anchors of a Markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range headingRe.FindAllStringSubmatch(fenceRe.ReplaceAllString(string(b), ""), -1) {
		out[anchor(m[1])] = true
	}
	return out
}

// TestRelativeLinksResolve checks every relative link (and its #anchor,
// for a Markdown target) of the landing page and the guides.
func TestRelativeLinksResolve(t *testing.T) {
	files := []string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "CHANGELOG.md")}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := fenceRe.ReplaceAllString(string(b), "")
		for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, frag, _ := strings.Cut(link, "#")
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: no file %s", f, link, path)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[frag] {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", f, link, frag, path)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("checked %d links, want the guides' links (at least 10)", checked)
	}
}

// TestAnchor checks the anchor rule on headings the docs use.
func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"Versioning policy":                       "versioning-policy",
		"Switch a whole module: `fanout-migrate`": "switch-a-whole-module-fanout-migrate",
		"[Unreleased]":                            "unreleased",
	} {
		if got := anchor(h); got != want {
			t.Errorf("anchor(%q) = %q, want %q", h, got, want)
		}
	}
}
