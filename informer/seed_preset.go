package informer

import "github.com/kfanout/fanout/internal/features"

// SeedPreset returns opts set to the shape of fanout's first release and
// of the informer the seed article describes: the DeltaFIFO, whose Pop
// processes an object's deltas under the queue lock and merges adjacent
// deletions, feeding client-go's classic processorListeners (an add
// channel, a pop goroutine pumping through the growing ring, a run
// goroutine calling the handler). Every other field is kept.
//
// The defaults are client-go's instead (RealFIFO with batch pops, atomic
// Replace and Resync, unlock-while-processing; see the package's Defaults
// section). Use the preset to keep the older cross-key order, where an
// object's pending deltas are delivered together, or to compare the two.
// The reflector's list mode is not part of the shape: it follows the
// WatchListClient gate, and a streamed list reaches the queue as the same
// Replace a list does.
func SeedPreset(opts SharedIndexInformerOptions) SharedIndexInformerOptions {
	inOrder := false
	opts.InOrder = &inOrder
	opts.ListenerEngine = EngineClassic
	return opts
}

// resolveInOrder is the queue choice of an InOrder option: its value when
// set, else the InOrderInformers gate.
func resolveInOrder(inOrder *bool) bool {
	if inOrder != nil {
		return *inOrder
	}
	return features.Enabled(features.InOrderInformers)
}
