package deltafifo

import "reflect"

// clientGoTombstone names client-go's cache.DeletedFinalStateUnknown, which
// fanout recognises by its shape because the root module cannot import
// client-go. A program that swaps only the tools/cache import keeps getting
// client-go's tombstones from client-go's informers; fanout's key functions
// and handler adapters must see them as deletes, not as objects without
// metadata.
const (
	clientGoTombstonePkg  = "k8s.io/client-go/tools/cache"
	clientGoTombstoneName = "DeletedFinalStateUnknown"
)

// AsDeletedFinalStateUnknown returns obj as a DeletedFinalStateUnknown if it
// is one: fanout's own, or client-go's cache.DeletedFinalStateUnknown
// (recognised as a struct of that name in package
// k8s.io/client-go/tools/cache with a string Key and an interface Obj),
// whose Key and Obj it copies. Anything else gives false.
func AsDeletedFinalStateUnknown(obj any) (DeletedFinalStateUnknown, bool) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d, true
	}
	t := reflect.TypeOf(obj)
	// Objects are pointers; this check keeps their cost to a type read.
	if t == nil || t.Kind() != reflect.Struct || t.Name() != clientGoTombstoneName || t.PkgPath() != clientGoTombstonePkg {
		return DeletedFinalStateUnknown{}, false
	}
	key, okKey := t.FieldByName("Key")
	o, okObj := t.FieldByName("Obj")
	if !okKey || !okObj || key.Type.Kind() != reflect.String || o.Type.Kind() != reflect.Interface {
		return DeletedFinalStateUnknown{}, false
	}
	v := reflect.ValueOf(obj)
	return DeletedFinalStateUnknown{
		Key: v.FieldByIndex(key.Index).String(),
		Obj: v.FieldByIndex(o.Index).Interface(),
	}, true
}

// NormalizeDeleted returns obj with client-go's DeletedFinalStateUnknown
// replaced by fanout's; any other value, fanout's tombstone included, is
// returned as it is.
func NormalizeDeleted(obj any) any {
	if _, ok := obj.(DeletedFinalStateUnknown); ok {
		return obj
	}
	if d, ok := AsDeletedFinalStateUnknown(obj); ok {
		return d
	}
	return obj
}
