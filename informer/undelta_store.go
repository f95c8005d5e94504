package informer

// UndeltaStore is a Store that, after every successful write, calls
// PushFunc with the complete list of its objects, so that a consumer that
// wants whole states rather than changes can be fed by a reflector.
// PushFunc is called on the writer's goroutine, after the write, with no
// lock of the UndeltaStore held.
type UndeltaStore struct {
	Store
	// PushFunc receives the store's whole content after each write.
	PushFunc func([]any)
}

var _ Store = &UndeltaStore{}

// NewUndeltaStore returns an UndeltaStore over a new Store keyed by
// keyFunc that pushes to pushFunc.
func NewUndeltaStore(pushFunc func([]any), keyFunc KeyFunc) *UndeltaStore {
	return &UndeltaStore{Store: NewStore(keyFunc), PushFunc: pushFunc}
}

// Add adds obj to the store, then pushes the store's content.
func (u *UndeltaStore) Add(obj any) error { return u.push(u.Store.Add(obj)) }

// Update updates obj in the store, then pushes the store's content.
func (u *UndeltaStore) Update(obj any) error { return u.push(u.Store.Update(obj)) }

// Delete deletes obj from the store, then pushes the store's content.
func (u *UndeltaStore) Delete(obj any) error { return u.push(u.Store.Delete(obj)) }

// Replace replaces the store's content, then pushes it.
func (u *UndeltaStore) Replace(list []any, resourceVersion string) error {
	return u.push(u.Store.Replace(list, resourceVersion))
}

// push pushes the store's content unless the write failed with err.
func (u *UndeltaStore) push(err error) error {
	if err != nil {
		return err
	}
	u.PushFunc(u.Store.List())
	return nil
}
