package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A release's source, small enough to read: the generator writes aliases
// (generic ones with their constraints qualified), constant and variable
// copies, function variables, and wrappers for generic functions.
const sampleSource = `package cache

import (
	"context"

	v1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type Object interface{ GetName() string }

type Indexer[T any] interface{ Get(T) }

type Typed[T Object, K comparable] struct{}

const Added = "Added"

var ErrClosed = error(nil)

func New(name string, opts ...int) *v1.ObjectMeta { return nil }

func Wait(ctx context.Context, _ string, stop <-chan struct{}) bool { return false }

func Convert[T Object](in Indexer[T], cache int, items ...T) (Indexer[T], error) { return nil, nil }

func hidden() {}
`

func TestGenerateSample(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(sampleSource), 0o644); err != nil {
		t.Fatal(err)
	}
	scan, err := scanDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := buildList([]string{"v1"}, []map[string]decl{scan})
	src, err := generate(l, scan, map[string]bool{"Wait": true})
	if err != nil {
		t.Fatal(err)
	}
	got := string(src)
	for _, want := range []string{
		"type Object = cache.Object\n",
		"type Indexer[T any] = cache.Indexer[T]\n",
		"type Typed[T cache.Object, K comparable] = cache.Typed[T, K]\n",
		"const Added = cache.Added\n",
		"var ErrClosed = cache.ErrClosed\n",
		"var New = cache.New\n",
		"func Convert[T cache.Object](in cache.Indexer[T], cacheArg int, items ...T) (cache.Indexer[T], error) {\n\treturn cache.Convert[T](in, cacheArg, items...)\n}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated source lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"Wait", "hidden"} {
		if strings.Contains(got, absent) {
			t.Errorf("generated source declares %s, which is hand-written or unexported:\n%s", absent, got)
		}
	}
}
