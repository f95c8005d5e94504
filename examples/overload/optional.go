package main

import (
	"reflect"

	"github.com/kfanout/fanout/informer"
)

// coalescedField is the ListenerStats counter of notifications merged by
// OverflowCoalesce. It is read by name so that the demo builds both before
// and after the counter is added to ListenerStats.
const coalescedField = "Coalesced"

// optionalCounter returns st's integer field name and whether st has one.
func optionalCounter(st informer.ListenerStats, name string) (int64, bool) {
	f := reflect.ValueOf(st).FieldByName(name)
	switch {
	case !f.IsValid():
		return 0, false
	case f.CanInt():
		return f.Int(), true
	case f.CanUint():
		return int64(f.Uint()), true
	}
	return 0, false
}
