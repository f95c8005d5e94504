package listener

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// NameForHandler returns the name client-go gives a handler in logs and sync
// tracker names:
//
//   - for a ResourceEventHandlerFuncs value (client-go's or informer's, or a
//     pointer to one), the common package qualifier of its functions, or
//     their full names joined with "+" when they come from different places;
//   - otherwise the package path and name of the handler's type, with
//     pointers dereferenced ("example.com/ctl.Reconciler");
//   - when neither gives a name, fmt's %T of the handler.
//
// Because this package cannot name informer.ResourceEventHandlerFuncs, the
// first rule applies to any struct type named ResourceEventHandlerFuncs whose
// fields AddFunc, UpdateFunc and DeleteFunc are functions.
func NameForHandler(handler Handler) (name string) {
	defer func() {
		if name == "" {
			name = fmt.Sprintf("%T", handler)
		}
	}()
	if handler == nil {
		return ""
	}
	v := reflect.ValueOf(handler)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if fs, ok := handlerFuncs(v); ok {
		return nameForFunctions(fs...)
	}
	t := v.Type()
	name = t.PkgPath()
	if name != "" {
		name += "."
	}
	return name + t.Name()
}

// handlerFuncs returns the AddFunc, UpdateFunc and DeleteFunc fields of a
// ResourceEventHandlerFuncs value.
func handlerFuncs(v reflect.Value) ([]reflect.Value, bool) {
	if v.Kind() != reflect.Struct || v.Type().Name() != "ResourceEventHandlerFuncs" {
		return nil, false
	}
	var fs []reflect.Value
	for _, field := range []string{"AddFunc", "UpdateFunc", "DeleteFunc"} {
		f := v.FieldByName(field)
		if !f.IsValid() || f.Kind() != reflect.Func {
			return nil, false
		}
		fs = append(fs, f)
	}
	return fs, true
}

// nameForFunctions names a set of functions: their shared qualifier (the name
// up to the last dot) if they all have one, else their names joined by "+".
// Nil functions are ignored.
func nameForFunctions(fs ...reflect.Value) string {
	var names []string
	qualifier, single := "", true
	for _, f := range fs {
		if f.IsNil() {
			continue
		}
		fn := runtime.FuncForPC(f.Pointer())
		if fn == nil || fn.Name() == "" {
			continue
		}
		name := fn.Name()
		names = append(names, name)
		q := name
		if i := strings.LastIndexByte(q, '.'); i > 0 {
			q = q[:i]
		}
		switch qualifier {
		case "":
			qualifier = q
		case q:
		default:
			single = false
		}
	}
	if single {
		return qualifier
	}
	return strings.Join(names, "+")
}
