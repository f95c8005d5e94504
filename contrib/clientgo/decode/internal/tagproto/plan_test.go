package tagproto

import (
	"reflect"
	"slices"
	"sort"
	"testing"
)

// TestPlansDecodeFieldByField requires that every built-in type is decoded
// field by field, except those whose wire form is written by hand: a
// plan that fell back to the type's own Unmarshal would make the
// differential tests pass without testing the decoder.
func TestPlansDecodeFieldByField(t *testing.T) {
	for _, typ := range protoTypes() {
		planFor(typ)
	}
	var own []string
	plans.Range(func(_ reflect.Type, p *plan) bool {
		if p.own {
			own = append(own, p.typ.String())
		}
		return true
	})
	sort.Strings(own)
	// Quantity, Time and MicroTime are written by hand; the others are
	// named slices wrapped in a message (AttestationValue since v0.37).
	allowed := []string{"resource.Quantity", "v1.AttestationValue", "v1.ExtraValue", "v1.MicroTime", "v1.Time", "v1.Verbs", "v1beta1.ExtraValue"}
	for _, o := range own {
		if !slices.Contains(allowed, o) {
			t.Errorf("%s is decoded by its own Unmarshal", o)
		}
	}
	for _, w := range []string{"resource.Quantity", "v1.MicroTime", "v1.Time", "v1.Verbs"} {
		if !slices.Contains(own, w) {
			t.Errorf("%s is decoded field by field", w)
		}
	}
}
