package informer

import "github.com/kfanout/fanout/deltafifo"

// The queues live in package deltafifo; these aliases make them available
// under client-go's names in this package.
type (
	// DeltaFIFO is the queue that feeds fanout's informer by default.
	DeltaFIFO = deltafifo.DeltaFIFO
	// DeltaFIFOOptions configures NewDeltaFIFOWithOptions.
	DeltaFIFOOptions = deltafifo.DeltaFIFOOptions
	// RealFIFO is the in-order queue (client-go v1.33+'s default).
	RealFIFO = deltafifo.RealFIFO
	// RealFIFOOptions configures NewRealFIFOWithOptions.
	RealFIFOOptions = deltafifo.RealFIFOOptions
)

// NewDeltaFIFOWithOptions returns a DeltaFIFO.
func NewDeltaFIFOWithOptions(opts DeltaFIFOOptions) *DeltaFIFO {
	return deltafifo.NewDeltaFIFOWithOptions(opts)
}

// NewDeltaFIFO returns a DeltaFIFO with keyFunc and knownObjects.
//
// Deprecated: use NewDeltaFIFOWithOptions.
func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return deltafifo.NewDeltaFIFO(keyFunc, knownObjects)
}

// NewRealFIFOWithOptions returns a RealFIFO. It panics on the invalid
// option combinations listed at deltafifo.NewRealFIFOWithOptions.
func NewRealFIFOWithOptions(opts RealFIFOOptions) *RealFIFO {
	return deltafifo.NewRealFIFOWithOptions(opts)
}

// NewRealFIFO returns a non-atomic RealFIFO.
//
// Deprecated: use NewRealFIFOWithOptions.
func NewRealFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter, transformer TransformFunc) *RealFIFO {
	return deltafifo.NewRealFIFO(keyFunc, knownObjects, transformer)
}
