package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The tool's copy of the identifier list is the type-identical package's.
func TestTypeIdenticalListIsCurrent(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "contrib", "clientgo", "cache", "internal", "gen", "testdata", "identifiers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != identifierList {
		t.Fatal("typeid_identifiers.txt differs from contrib/clientgo/cache/internal/gen/testdata/identifiers.txt: copy it")
	}
	for _, name := range []string{"NewSharedIndexInformer", "DeletedFinalStateUnknown", "FanoutInformer"} {
		if !typeIdenticalNames[name] {
			t.Errorf("%s is not among the type-identical names", name)
		}
	}
	for _, name := range []string{"NewTypedSharedIndexInformer", "ShutDownEventHandler"} {
		if typeIdenticalNames[name] {
			t.Errorf("%s is among the type-identical names, but not every supported release has it", name)
		}
	}
}
