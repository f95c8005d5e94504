package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var update = flag.Bool("update", false, "rewrite testdata/output.txt from this run")

// The demo's output is deterministic, as its documentation says: several
// runs print exactly testdata/output.txt.
func TestOutputIsDeterministic(t *testing.T) {
	const runs = 8
	if *update {
		var b bytes.Buffer
		if err := run(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/output.txt", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		var b bytes.Buffer
		if err := run(&b); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if got := b.String(); got != string(want) {
			t.Fatalf("run %d printed:\n%s\nwant (testdata/output.txt):\n%s", i, got, want)
		}
	}
}
