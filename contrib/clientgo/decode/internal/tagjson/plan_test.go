package tagjson

import (
	"reflect"
	"slices"
	"sort"
	"testing"
)

// TestPlansDecodeFieldByField requires that every type reached from the
// built-in types is decoded by the plan, except those that decode
// themselves, []byte and the interfaces with methods: a plan that handed
// whole objects to the reference decoder would make the differential
// tests pass without testing the decoder.
func TestPlansDecodeFieldByField(t *testing.T) {
	for _, typ := range schemeTypes() {
		planFor(typ)
	}
	var delegated []string
	plans.Range(func(typ reflect.Type, p *plan) bool {
		if p.kind == kDelegate {
			delegated = append(delegated, typ.String())
		}
		return true
	})
	sort.Strings(delegated)
	allowed := []string{"*v1.MicroTime", "*v1.Time", "*resource.Quantity", "*intstr.IntOrString", "*v1.FieldsV1",
		"[]uint8", "intstr.IntOrString", "resource.Quantity", "runtime.Object", "runtime.RawExtension", "*runtime.RawExtension",
		"v1.Duration", "*v1.Duration", "v1.FieldsV1", "v1.MicroTime", "v1.Time"}
	for _, d := range delegated {
		if !slices.Contains(allowed, d) {
			t.Errorf("%s is handed to the reference decoder", d)
		}
	}
	for _, w := range []string{"resource.Quantity", "v1.Time", "intstr.IntOrString", "[]uint8"} {
		if !slices.Contains(delegated, w) {
			t.Errorf("%s is decoded by the plan", w)
		}
	}
}
