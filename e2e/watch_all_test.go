package e2e

import (
	"testing"

	"k8s.io/client-go/kubernetes"
)

// watchAll starts three informers on cs for the objects of ns that match
// selector (fanout with DeltaFIFO, fanout in-order, client-go), each with
// one recording handler, and waits until the informers and the handlers
// have synced. The recorders are keyed by subject name.
func watchAll(t *testing.T, cs kubernetes.Interface, ns, selector string) ([]*subject, map[string]*recorder) {
	t.Helper()
	subjects := []*subject{
		newFanoutSubject(t, "fanout", cs, ns, selector, false),
		newFanoutSubject(t, "fanout-inorder", cs, ns, selector, true),
		newClientGoSubject(t, "client-go", cs, ns, selector),
	}
	recs := map[string]*recorder{}
	var synced []func() bool
	for _, s := range subjects {
		recs[s.name] = newRecorder()
		f, err := s.addHandler(recs[s.name])
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, s.hasSynced, f)
	}
	startAll(t, subjects...)
	waitSynced(t, "informers synced", synced...)
	return subjects, recs
}
