package decode

import (
	"bytes"
	"reflect"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/tagjson"
)

// leanJSONSerializer is the JSON serializer whose Decode builds registered
// objects with the lean JSON decoder; every other case (Unknown and
// unstructured targets, a target that is not zero, input whose kind the
// serializer would read differently), and encoding, is the serializer's
// own.
type leanJSONSerializer struct {
	runtime.Serializer
	scheme *runtime.Scheme
	tables *tables
}

// Decode decodes a JSON object as the JSON serializer does, with the same
// defaults, errors and result: where the lean decoder fails or declines,
// the input is decoded again, into a new value, by the serializer's JSON
// decoder, whose result or error stands.
func (s *leanJSONSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	switch into.(type) {
	case *runtime.Unknown, runtime.Unstructured:
		return s.Serializer.Decode(data, defaults, into)
	}
	actual, ok := topKind(data)
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	if defaults != nil {
		actual = jsonKindDefaults(actual, *defaults)
	}
	if into != nil {
		kinds, _, err := s.scheme.ObjectKinds(into)
		if err != nil {
			return s.Serializer.Decode(data, defaults, into)
		}
		actual = jsonKindDefaults(actual, kinds[0])
	}
	if len(actual.Kind) == 0 || len(actual.Version) == 0 {
		return s.Serializer.Decode(data, defaults, into)
	}
	obj, err := runtime.UseOrCreateObject(s.scheme, s.scheme, actual, into)
	if err != nil {
		return nil, &actual, err
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || !v.Elem().IsZero() {
		return s.Serializer.Decode(data, defaults, into)
	}
	if err := s.tables.unmarshalJSON(data, obj); err != nil {
		v.Elem().SetZero()
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
			return nil, &actual, err
		}
	}
	return obj, &actual, nil
}

// jsonKindDefaults fills actual's missing kind and version from def, as
// the JSON serializer does.
func jsonKindDefaults(actual, def schema.GroupVersionKind) schema.GroupVersionKind {
	if len(actual.Kind) == 0 {
		actual.Kind = def.Kind
	}
	if len(actual.Version) == 0 && len(actual.Group) == 0 {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if len(actual.Version) == 0 && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

// topKind reads the kind and apiVersion of the JSON object data, as the
// JSON serializer would, where that is plain: data is one well-formed
// object, and each of the two is a plain string under its exact key, met
// at most once, and no other key matches either name without regard to
// case (which the serializer's reader, encoding/json, would take: it
// folds case as strings.EqualFold does, the Kelvin sign standing for K).
func topKind(data []byte) (schema.GroupVersionKind, bool) {
	var apiVersion, kind string
	var haveVersion, haveKind bool
	ok := tagjson.Members(data, func(key, value []byte) bool {
		var dst *string
		var have *bool
		switch {
		case string(key) == "kind":
			dst, have = &kind, &haveKind
		case string(key) == "apiVersion":
			dst, have = &apiVersion, &haveVersion
		case strings.EqualFold(string(key), "kind"), strings.EqualFold(string(key), "apiVersion"):
			return false
		default:
			return true
		}
		if *have || len(value) < 2 || value[0] != '"' || bytes.IndexByte(value[1:len(value)-1], '\\') >= 0 || !utf8.Valid(value) {
			return false
		}
		*dst, *have = string(value[1:len(value)-1]), true
		return true
	})
	if !ok {
		return schema.GroupVersionKind{}, false
	}
	return schema.FromAPIVersionAndKind(apiVersion, kind), true
}
