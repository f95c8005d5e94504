package informer

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/trace"

	"github.com/kfanout/fanout/internal/pager"
)

// list fetches the whole resource, in pages where that helps, replaces the
// store's contents with it and records its resource version. It returns
// nil without touching the store if ctx is done first.
func (r *Reflector) list(ctx context.Context) error {
	options := metav1.ListOptions{ResourceVersion: r.relistResourceVersion()}
	tr := trace.New("Reflector ListAndWatch", trace.Field{Key: "name", Value: r.name})
	defer tr.LogIfLong(10 * time.Second)

	// The list runs on its own goroutine so that a panic in the
	// ListerWatcher is re-raised here; its results are read only after
	// done is closed. When ctx is done first, list still waits for that
	// goroutine (the ListerWatcher got ctx and should return promptly), so
	// that RunWithContext never returns while a list it started runs on.
	var (
		list      runtime.Object
		paginated bool
		err       error
	)
	pageSize := r.pageSize(options.ResourceVersion)
	done := make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				panicked <- p
			}
		}()
		list, paginated, err = r.fetchList(ctx, options, pageSize)
		close(done)
	}()
	select {
	case <-ctx.Done():
		select {
		case p := <-panicked:
			panic(p)
		case <-done:
		}
		return nil
	case p := <-panicked:
		panic(p)
	case <-done:
	}

	tr.Step("Objects listed", trace.Field{Key: "error", Value: err}, trace.Field{Key: "count", Value: meta.LenList(list)})
	if err != nil {
		return fmt.Errorf("failed to list %v: %w", r.typeDescription, err)
	}
	// Only an RV="0" list tells whether the server pages lists from its
	// cache; an RV="" list is always paged by etcd.
	if options.ResourceVersion == "0" && paginated {
		r.paginatedResult = true
	}
	r.setLastSyncResourceVersionUnavailable(false)
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return fmt.Errorf("unable to understand list result %#v: %v", list, err)
	}
	resourceVersion := listMeta.GetResourceVersion()
	items, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return fmt.Errorf("unable to understand list result %#v (%v)", list, err)
	}
	tr.Step("Objects extracted")
	found := make([]any, 0, len(items))
	for _, item := range items {
		found = append(found, item)
	}
	if err := r.replaceStore(found, resourceVersion); err != nil {
		return fmt.Errorf("unable to sync list result: %v", err)
	}
	tr.Step("SyncWith done")
	r.setLastSyncResourceVersion(resourceVersion)
	r.fill.done()
	return nil
}

// pageSize is the Limit for a list at resourceVersion.
func (r *Reflector) pageSize(resourceVersion string) int64 {
	switch {
	case r.WatchListPageSize != 0:
		return r.WatchListPageSize
	case r.paginatedResult:
		// The server paged an RV="0" list before: it has no watch cache
		// for this resource, so keep paging.
		return pager.DefaultPageSize
	case resourceVersion != "" && resourceVersion != "0":
		// Without a Limit the server can answer an exact RV from its watch
		// cache instead of etcd; the result is still at least that fresh.
		return 0
	default:
		return pager.DefaultPageSize
	}
}

// fetchList runs the pager, and retries once at RV "" when the server
// refuses the requested RV.
func (r *Reflector) fetchList(ctx context.Context, options metav1.ListOptions, pageSize int64) (runtime.Object, bool, error) {
	p := pager.New(func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		page, err := r.listerWatcher.ListWithContext(ctx, opts)
		if err == nil {
			r.fill.items.Add(int64(meta.LenList(page)))
		}
		return page, err
	})
	p.PageSize = pageSize
	// The pager gets a background context, as in client-go: cancellation
	// reaches the ListerWatcher through ctx above, and list() stops
	// waiting on ctx itself.
	list, paginated, err := p.ListWithAlloc(context.Background(), options)
	if isExpiredError(err) || isTooLargeResourceVersionError(err) {
		// The RV is gone or not yet known: list at the newest RV with a
		// consistent read so that the reflector makes progress.
		r.setLastSyncResourceVersionUnavailable(true)
		list, paginated, err = p.ListWithAlloc(context.Background(), metav1.ListOptions{ResourceVersion: r.relistResourceVersion()})
	}
	if err == nil {
		if table, gvk := isTableList(list); table {
			err = fmt.Errorf("unsupported list gvk: %v, type: %v", gvk, r.typeDescription)
		}
	}
	return list, paginated, err
}
