// Package deltafifo holds the queues that sit between a reflector and an
// informer's store: RealFIFO (client-go's in-order queue, the default of
// client-go from v1.33 and of fanout) and DeltaFIFO (client-go's queue up
// to v1.32, one option away in fanout), with the Delta types they queue
// and the key functions they need.
//
// Both queues keep client-go's API and behaviour (Add, Update, Delete,
// Replace, Resync, Pop, HasSynced). The informer pops them with an
// unexported keyed pop, reached through fanout's internal/queueaccess, which
// hands it the keys the queue computed when the deltas were queued, so
// that it writes its store without computing them again; RealFIFO pops a
// batch of distinct keys through it when asked.
//
// The package starts no goroutines: a queue is driven by its producer (the
// reflector) and its single consumer (the informer's controller).
package deltafifo
