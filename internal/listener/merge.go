package listener

// mergeOutcome says how two notifications for one key combine.
type mergeOutcome uint8

const (
	// keepBoth: the later notification is queued after the earlier one.
	keepBoth mergeOutcome = iota
	// mergedOne: the two became the one notification returned.
	mergedOne
	// cancelled: neither is delivered.
	cancelled
)

// merge combines earlier, a pending notification, with later, a new one for
// the same object key, under OverflowCoalesce (see docs/architecture.md
// for where coalescing sits on the delivery path):
//
//	Add + Update            -> Add(new state), still initial-list if it was
//	Add + Add               -> Add(new state), initial-list if either was
//	Add + Delete            -> nothing (the handler never saw the object)
//	Update(a→b) + Update(b→c) -> Update(a→c)
//	Update(a→b) + Delete    -> Delete(last state)
//	Delete + Delete         -> Delete(last state)
//	Delete + Add            -> both, in order (the object was recreated)
//
// Any other pair (Update + Add, Delete + Update: the informer does not
// produce them) is kept as both, in order.
func merge(earlier, later Notification) (Notification, mergeOutcome) {
	switch earlier.Kind {
	case Add:
		switch later.Kind {
		case Update:
			return Notification{Kind: Add, Obj: later.Obj, IsInInitialList: earlier.IsInInitialList, Seq: later.Seq}, mergedOne
		case Add:
			return Notification{Kind: Add, Obj: later.Obj, IsInInitialList: earlier.IsInInitialList || later.IsInInitialList, Seq: max(earlier.Seq, later.Seq)}, mergedOne
		case Delete:
			return Notification{}, cancelled
		}
	case Update:
		switch later.Kind {
		case Update:
			return Notification{Kind: Update, OldObj: earlier.OldObj, Obj: later.Obj, Seq: later.Seq}, mergedOne
		case Delete:
			return Notification{Kind: Delete, Obj: later.Obj, Seq: later.Seq}, mergedOne
		}
	case Delete:
		if later.Kind == Delete {
			return Notification{Kind: Delete, Obj: later.Obj, Seq: later.Seq}, mergedOne
		}
	}
	return Notification{}, keepBoth
}

// initialAdds returns 1 for an initial-list add, else 0.
func initialAdds(n Notification) int {
	if n.initialListAdd() {
		return 1
	}
	return 0
}
