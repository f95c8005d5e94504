// Package pager splits a large list into pages joined by continue tokens,
// as client-go's tools/pager does, for the reflector's lists.
package pager

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultPageSize is the page size New sets.
const DefaultPageSize = 500

// ListPageFunc fetches one page.
type ListPageFunc func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)

// SimplePageFunc adapts a context-free list function.
func SimplePageFunc(fn func(opts metav1.ListOptions) (runtime.Object, error)) ListPageFunc {
	return func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return fn(opts)
	}
}

// ListPager fetches a list in pages of at most PageSize items and joins
// them. The zero PageSize asks for the whole list in one request.
type ListPager struct {
	// PageSize is the Limit of each request when the caller's options set
	// none.
	PageSize int64
	// PageFn fetches one page.
	PageFn ListPageFunc
	// FullListIfExpired makes the pager fetch the whole list in one
	// request, at the originally requested resource version, when a
	// continue token has expired (410 Expired on page two or later).
	FullListIfExpired bool
}

// New returns a pager with PageSize 500 and FullListIfExpired set.
func New(fn ListPageFunc) *ListPager {
	return &ListPager{PageSize: DefaultPageSize, PageFn: fn, FullListIfExpired: true}
}

// List fetches the whole list. It returns the first response unchanged if
// it had no continue token; otherwise a *metainternalversion.List with the
// items of every page and the first page's resource version. paginated
// reports whether more than one page was requested.
func (p *ListPager) List(ctx context.Context, options metav1.ListOptions) (list runtime.Object, paginated bool, err error) {
	return p.list(ctx, options, false)
}

// ListWithAlloc is List, but copies non-pointer items so that the result
// does not keep each page's item slice alive.
func (p *ListPager) ListWithAlloc(ctx context.Context, options metav1.ListOptions) (list runtime.Object, paginated bool, err error) {
	return p.list(ctx, options, true)
}

func (p *ListPager) list(ctx context.Context, options metav1.ListOptions, alloc bool) (runtime.Object, bool, error) {
	if p.PageFn == nil {
		return nil, false, fmt.Errorf("pager: PageFn is nil")
	}
	if options.Limit == 0 {
		options.Limit = p.PageSize
	}
	wantRV, wantMatch := options.ResourceVersion, options.ResourceVersionMatch
	var joined *metainternalversion.List
	paginated := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, paginated, err
		}
		obj, err := p.PageFn(ctx, options)
		if err != nil {
			// Only a continue token that expired is worth a full list:
			// the first page's errors go to the caller as they are.
			if !apierrors.IsResourceExpired(err) || !p.FullListIfExpired || options.Continue == "" {
				return nil, paginated, err
			}
			options.Limit = 0
			options.Continue = ""
			options.ResourceVersion, options.ResourceVersionMatch = wantRV, wantMatch
			full, err := p.PageFn(ctx, options)
			return full, paginated, err
		}
		m, err := meta.ListAccessor(obj)
		if err != nil {
			return nil, paginated, fmt.Errorf("returned object must be a list: %v", err)
		}
		if m.GetContinue() == "" && joined == nil {
			return obj, paginated, nil
		}
		if joined == nil {
			joined = &metainternalversion.List{Items: make([]runtime.Object, 0, options.Limit+1)}
			joined.ResourceVersion = m.GetResourceVersion()
			joined.SelfLink = m.GetSelfLink()
		}
		each := meta.EachListItem
		if alloc {
			each = meta.EachListItemWithAlloc
		}
		if err := each(obj, func(item runtime.Object) error {
			joined.Items = append(joined.Items, item)
			return nil
		}); err != nil {
			return nil, paginated, err
		}
		if m.GetContinue() == "" {
			return joined, paginated, nil
		}
		options.Continue = m.GetContinue()
		// A continue request must not name a resource version: the token
		// already pins it.
		options.ResourceVersion = ""
		options.ResourceVersionMatch = ""
		paginated = true
	}
}
