package informer

// FakeCustomStore is a Store for tests whose methods call the matching
// function field. A nil field makes its method do nothing and return zero
// values.
type FakeCustomStore struct {
	AddFunc                          func(obj any) error
	UpdateFunc                       func(obj any) error
	DeleteFunc                       func(obj any) error
	ListFunc                         func() []any
	ListKeysFunc                     func() []string
	GetFunc                          func(obj any) (item any, exists bool, err error)
	GetByKeyFunc                     func(key string) (item any, exists bool, err error)
	ReplaceFunc                      func(list []any, resourceVersion string) error
	ResyncFunc                       func() error
	BookmarkFunc                     func(rv string)
	LastStoreSyncResourceVersionFunc func() string
}

var _ Store = &FakeCustomStore{}

// Add calls AddFunc.
func (f *FakeCustomStore) Add(obj any) error {
	if f.AddFunc == nil {
		return nil
	}
	return f.AddFunc(obj)
}

// Update calls UpdateFunc.
func (f *FakeCustomStore) Update(obj any) error {
	if f.UpdateFunc == nil {
		return nil
	}
	return f.UpdateFunc(obj)
}

// Delete calls DeleteFunc.
func (f *FakeCustomStore) Delete(obj any) error {
	if f.DeleteFunc == nil {
		return nil
	}
	return f.DeleteFunc(obj)
}

// List calls ListFunc.
func (f *FakeCustomStore) List() []any {
	if f.ListFunc == nil {
		return nil
	}
	return f.ListFunc()
}

// ListKeys calls ListKeysFunc.
func (f *FakeCustomStore) ListKeys() []string {
	if f.ListKeysFunc == nil {
		return nil
	}
	return f.ListKeysFunc()
}

// Get calls GetFunc.
func (f *FakeCustomStore) Get(obj any) (item any, exists bool, err error) {
	if f.GetFunc == nil {
		return nil, false, nil
	}
	return f.GetFunc(obj)
}

// GetByKey calls GetByKeyFunc.
func (f *FakeCustomStore) GetByKey(key string) (item any, exists bool, err error) {
	if f.GetByKeyFunc == nil {
		return nil, false, nil
	}
	return f.GetByKeyFunc(key)
}

// Replace calls ReplaceFunc.
func (f *FakeCustomStore) Replace(list []any, resourceVersion string) error {
	if f.ReplaceFunc == nil {
		return nil
	}
	return f.ReplaceFunc(list, resourceVersion)
}

// Resync calls ResyncFunc.
func (f *FakeCustomStore) Resync() error {
	if f.ResyncFunc == nil {
		return nil
	}
	return f.ResyncFunc()
}

// Bookmark calls BookmarkFunc.
func (f *FakeCustomStore) Bookmark(rv string) {
	if f.BookmarkFunc != nil {
		f.BookmarkFunc(rv)
	}
}

// LastStoreSyncResourceVersion calls LastStoreSyncResourceVersionFunc.
func (f *FakeCustomStore) LastStoreSyncResourceVersion() string {
	if f.LastStoreSyncResourceVersionFunc == nil {
		return ""
	}
	return f.LastStoreSyncResourceVersionFunc()
}
