package listener

import "fmt"

// Kind says which handler method a Notification is for.
type Kind uint8

// The kinds of notification. The zero Kind is invalid, so a zero
// Notification is never mistaken for a real one: a listener handed a
// Notification of another Kind (only one built by hand can have one) calls
// no handler method for it.
const (
	// Add is delivered with Handler.OnAdd(Obj, IsInInitialList).
	Add Kind = iota + 1
	// Update is delivered with Handler.OnUpdate(OldObj, Obj).
	Update
	// Delete is delivered with Handler.OnDelete(Obj).
	Delete
)

// String returns "add", "update" or "delete".
func (k Kind) String() string {
	switch k {
	case Add:
		return "add"
	case Update:
		return "update"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Notification is one change to hand to a handler.
//
// The fields are ordered so that a Notification takes 40 bytes (two
// interfaces and one word for the flags): it is the bulk of what each
// pending notification costs.
type Notification struct {
	// Obj is the added object, the new state of an updated object, or the
	// final state of a deleted one (possibly a tombstone).
	Obj any
	// OldObj is the previous state of an updated object; unused otherwise.
	OldObj any
	// Kind selects the handler method.
	Kind Kind
	// IsInInitialList marks an Add that belongs to the informer's initial
	// list (or a late handler's replay); such adds count towards the
	// registration's HasSynced.
	IsInInitialList bool
	// Seq numbers the changes distributed by one Hub, in order (see
	// Hub.LastSeq): a replayed add carries the Seq of the last change
	// before the replay, a resync 0.
	Seq uint64
}

// NewAdd returns an Add notification for obj.
func NewAdd(obj any, isInInitialList bool) Notification {
	return Notification{Kind: Add, Obj: obj, IsInInitialList: isInInitialList}
}

// NewUpdate returns an Update notification from oldObj to newObj.
func NewUpdate(oldObj, newObj any) Notification {
	return Notification{Kind: Update, Obj: newObj, OldObj: oldObj}
}

// NewDelete returns a Delete notification for obj.
func NewDelete(obj any) Notification {
	return Notification{Kind: Delete, Obj: obj}
}

// initialListAdd reports whether n counts towards the registration's sync.
func (n Notification) initialListAdd() bool {
	return n.Kind == Add && n.IsInInitialList
}

// Handler receives notifications. Its method set is that of client-go's
// cache.ResourceEventHandler (and informer.ResourceEventHandler), so a value
// of either satisfies it. A listener calls its methods from one goroutine, one
// at a time, in the order the notifications were distributed.
type Handler interface {
	// OnAdd is called for a new object.
	OnAdd(obj any, isInInitialList bool)
	// OnUpdate is called for a changed (or resynced) object.
	OnUpdate(oldObj, newObj any)
	// OnDelete is called for a deleted object.
	OnDelete(obj any)
}
