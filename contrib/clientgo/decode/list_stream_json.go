package decode

import (
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// jsonList reads one JSON list object: each element of "items" is
// decoded as it arrives, from a reused buffer, and the other members
// (kind, apiVersion, metadata) are kept as they came and decoded at the
// end. Anything but a plain object with one "items" array of objects,
// or an item or member the lean decoder does not take, falls back.
func (s *listStream) jsonList() (runtime.Object, error) {
	obj := reflect.New(reflect.TypeOf(s.into).Elem()).Interface().(runtime.Object)
	field, ok := itemsField(obj)
	if !ok {
		return nil, errFallBack
	}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	rest := []byte{'{'}
	items := reflect.Zero(field.Type)
	count, seenItems, nullItems := 0, false, false
	for first := true; ; first = false {
		c, err := s.nextByte()
		if err != nil {
			return nil, err
		}
		if c == '}' && first {
			break
		}
		if c != '"' {
			return nil, errFallBack
		}
		key, err := s.value(s.buf[:0], '"')
		if err != nil {
			return nil, err
		}
		s.buf = key
		k := string(key[1 : len(key)-1])
		if strings.IndexByte(k, '\\') >= 0 {
			return nil, errFallBack // an escaped key could name anything
		}
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		switch {
		case k == "items":
			if seenItems || nullItems {
				return nil, errFallBack
			}
			if c, err := s.nextByte(); err != nil || c != '[' {
				if err != nil {
					return nil, err
				}
				// null leaves the items nil, as client-go's decoder does.
				null, err := s.value(s.buf[:0], c)
				if err != nil || string(null) != "null" {
					return nil, fallBackUnless(err)
				}
				nullItems = true
				break
			}
			seenItems = true
			if items, count, err = s.jsonItems(items); err != nil {
				return nil, err
			}
		case strings.EqualFold(k, "items"):
			return nil, errFallBack
		default:
			c, err := s.nextByte()
			if err != nil {
				return nil, err
			}
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(rest, key...)
			rest = append(rest, ':')
			if rest, err = s.value(rest, c); err != nil {
				return nil, err
			}
		}
		c, err = s.nextByte()
		if err != nil {
			return nil, err
		}
		if c == '}' {
			break
		}
		if c != ',' {
			return nil, errFallBack
		}
	}
	// Nothing but whitespace may follow the object.
	if _, err := s.nextByte(); err != errFallBack {
		return nil, fallBackUnless(err)
	}
	rest = append(rest, '}')
	if !s.jsonKindIs(rest, obj) {
		return nil, errFallBack
	}
	if err := s.t.tables.unmarshalJSON(rest, obj); err != nil {
		return nil, errFallBack
	}
	if seenItems {
		if count == 0 {
			items = reflect.MakeSlice(field.Type, 0, 0) // [] is an empty slice, not nil
		}
		setItems(obj, field, items, count)
	}
	// Typed objects leave client-go's REST client without their type.
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, nil
}

// jsonKindIs reports whether the JSON serializer would decode the object
// whose members other than items are rest as the type of obj.
func (s *listStream) jsonKindIs(rest []byte, obj runtime.Object) bool {
	actual, ok := topKind(rest)
	if !ok {
		return false
	}
	kinds, _, err := s.t.scheme.ObjectKinds(obj)
	if err != nil {
		return false
	}
	actual = jsonKindDefaults(actual, kinds[0])
	if len(actual.Kind) == 0 || len(actual.Version) == 0 {
		return false
	}
	made, err := runtime.UseOrCreateObject(s.t.scheme, s.t.scheme, actual, obj)
	return err == nil && made == obj
}

// jsonItems reads the items array after its '[', decoding each object
// into items (whose first count values are set) as it arrives.
func (s *listStream) jsonItems(items reflect.Value) (reflect.Value, int, error) {
	count := 0
	for {
		c, err := s.nextByte()
		if err != nil {
			return items, 0, err
		}
		if c == ']' && count == 0 {
			return items, 0, nil
		}
		if c != '{' {
			return items, 0, errFallBack
		}
		b, err := s.value(s.buf[:0], c)
		if err != nil {
			return items, 0, err
		}
		s.buf = b
		if count == items.Cap() {
			grown := reflect.MakeSlice(items.Type(), count, max(2*count, 16))
			reflect.Copy(grown, items)
			items = grown
		}
		items = items.Slice(0, count+1)
		if err := s.t.tables.unmarshalJSON(b, items.Index(count).Addr().Interface()); err != nil {
			return items, 0, errFallBack
		}
		count++
		if c, err = s.nextByte(); err != nil {
			return items, 0, err
		}
		if c == ']' {
			return items, count, nil
		}
		if c != ',' {
			return items, 0, errFallBack
		}
	}
}

// nextByte skips whitespace and reads the next byte; at the end of the
// body it returns errFallBack.
func (s *listStream) nextByte() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, short(err)
		}
		if !isSpace(c) {
			return c, nil
		}
	}
}

// expect reads the next byte after whitespace, which must be c.
func (s *listStream) expect(c byte) error {
	got, err := s.nextByte()
	if err != nil {
		return err
	}
	if got != c {
		return errFallBack
	}
	return nil
}

// value appends to dst the JSON value that starts with first (already
// read) and the bytes up to its end, and returns dst.
func (s *listStream) value(dst []byte, first byte) ([]byte, error) {
	var sc scanner
	sc.step([]byte{first}) // the first byte never ends a value
	src := source{r: s.r, pend: append(dst, first)}
	if err := src.scan(nil, true, &sc); err != nil {
		return nil, short(err)
	}
	return src.pend, nil
}
