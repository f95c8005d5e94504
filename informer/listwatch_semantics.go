package informer

// watchListSemanticsLW is a ListWatch that says whether its client can
// serve watch-list (streaming list) requests.
type watchListSemanticsLW struct {
	*ListWatch
	unsupported bool
}

// IsWatchListSemanticsUnSupported is what the reflector asks before it
// tries a watch-list request.
func (lw *watchListSemanticsLW) IsWatchListSemanticsUnSupported() bool { return lw.unsupported }

// ToListWatcherWithWatchListSemantics returns lw, marked as not supporting
// watch-list when client says so through an
// IsWatchListSemanticsUnSupported() bool method (as client-go's fake
// clientsets do).
func ToListWatcherWithWatchListSemantics(lw *ListWatch, client any) ListerWatcher {
	return &watchListSemanticsLW{ListWatch: lw, unsupported: watchListUnsupported(client)}
}
