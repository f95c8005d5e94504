package clientgo

import "errors"

// ErrInformerNotHeld is returned by the RemoveInformer methods of the
// factories of contrib/clientgo for a resource the factory holds no
// informer of; nothing is changed.
var ErrInformerNotHeld = errors.New("clientgo: the factory holds no informer of this resource")
