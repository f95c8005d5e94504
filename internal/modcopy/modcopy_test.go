package modcopy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplaceImport switches a named and an unnamed import, keeps the
// name the code uses, and leaves other files alone (c.go, and sub/d.go in
// a directory WriteFile creates).
func TestReplaceImport(t *testing.T) {
	m := New(t)
	m.WriteFile("a.go", "package a\n\nimport (\n\tki \"k8s.io/client-go/informers\"\n\t\"fmt\"\n)\n\nvar _, _ = ki.New, fmt.Sprint\n")
	m.WriteFile("b.go", "package a\n\nimport \"k8s.io/client-go/informers\"\n\nvar _ = informers.New\n")
	m.WriteFile("c.go", "package a\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n")
	m.WriteFile("sub/d.go", "package sub\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n")
	changed := m.ReplaceImport("k8s.io/client-go/informers", "example.com/fanout/factories")
	if strings.Join(changed, ",") != "a.go,b.go" {
		t.Fatalf("changed %v", changed)
	}
	for file, want := range map[string]string{
		"a.go":     "ki \"example.com/fanout/factories\"",
		"b.go":     "import informers \"example.com/fanout/factories\"",
		"c.go":     "import \"fmt\"",
		"sub/d.go": "import \"fmt\"",
	} {
		b, err := os.ReadFile(filepath.Join(m.Dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s:\n%s\nwant %q", file, b, want)
		}
	}
	m.EditFile("c.go", "fmt.Sprint", "fmt.Sprintf")
	if b, _ := os.ReadFile(filepath.Join(m.Dir, "c.go")); !strings.Contains(string(b), "fmt.Sprintf") {
		t.Errorf("EditFile: %s", b)
	}
}
