package informer

import "github.com/kfanout/fanout/deltafifo"

// AsDeletedFinalStateUnknown returns obj as a DeletedFinalStateUnknown if it
// is fanout's tombstone or client-go's cache.DeletedFinalStateUnknown,
// recognised by its shape since fanout does not import client-go. Every
// fanout function that accepts a deleted object (the DeletionHandling key
// functions, the handler adapters' OnDelete, typed handlers, the queues'
// KeyOf) uses it, so a program that takes fanout's helpers while its
// informers still come from client-go handles deletes correctly. A
// handler type of your own can call it where it would write
// obj.(cache.DeletedFinalStateUnknown).
func AsDeletedFinalStateUnknown(obj any) (DeletedFinalStateUnknown, bool) {
	return deltafifo.AsDeletedFinalStateUnknown(obj)
}
