package decode

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// requireKindAsSerializer fails unless topKind declines data, or reads
// the kind the JSON serializer's reader reads, which must succeed.
func requireKindAsSerializer(t *testing.T, data []byte) {
	t.Helper()
	got, ok := topKind(data)
	if !ok {
		return
	}
	want, err := json.DefaultMetaFactory.Interpret(data)
	if err != nil {
		t.Fatalf("%q: topKind reads %v, the serializer fails: %v", data, got, err)
	}
	if *want != got {
		t.Fatalf("%q: topKind reads %v, the serializer %v", data, got, *want)
	}
}

// TestTopKindAsSerializer reads the kind of objects whose keys the JSON
// serializer's case-insensitive reader might take differently.
func TestTopKindAsSerializer(t *testing.T) {
	declined := 0
	for _, body := range []string{
		`{"kind":"Pod","apiVersion":"v1"}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"kind":"x"}}`,
		`{"kind":"Pod","Kind":"Node"}`,
		`{"kind":"Pod","\u212aind":"Node"}`,
		"{\"kind\":\"Pod\",\"\u212aind\":\"Node\"}",
		"{\"kind\":\"Pod\",\"apİVersion\":\"v2\",\"apiVersion\":\"v1\"}",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"apİVersion\":\"v2\"}",
		`{"kind":"Pod","kind":"Node"}`,
		`{"kind":5}`,
		`{"kind":"P\u006fd"}`,
		`{"kind":"Pod"} x`,
		`[{"kind":"Pod"}]`,
		`{}`,
	} {
		if _, ok := topKind([]byte(body)); !ok {
			declined++
		}
		requireKindAsSerializer(t, []byte(body))
	}
	if declined < 6 {
		t.Fatalf("topKind declined only %d of the odd bodies", declined)
	}
}

// FuzzTopKind requires that topKind reads what the JSON serializer's
// reader reads wherever it does not decline.
func FuzzTopKind(f *testing.F) {
	f.Add([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`))
	f.Add([]byte("{\"\u212aind\":\"Pod\"}"))
	f.Fuzz(requireKindAsSerializer)
}
