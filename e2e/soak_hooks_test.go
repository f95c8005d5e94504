package e2e

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/contrib/clientgo"
	fanoutinformers "github.com/kfanout/fanout/contrib/clientgo/informers"
)

// soakExtraSubjects returns subjects that join the soak in group g next to
// the built-in ones (client-go, fanout, fanout-inorder,
// fanout-coalesce-workers). Each runs for the whole soak, is checked
// against the server at every quiescent point, and every handler added
// with compared=true is compared with client-go's handler of the group
// (see soakEnv.compareAll).
//
// The factory subject is the ConfigMap informer of fanout's typed factory
// (contrib/clientgo/informers) on g.cs, the group's label selector as its
// tweak function. The factory builds its own ListWatch, so the soak cannot
// learn its relist gaps: its handler is not compared call by call with
// client-go's (compared=false), but its store, its handler's final state
// and resource-version order are checked like every other subject's.
//
// The main group also has a sharded group of replicas of contrib/sharding
// (soak_sharded_test.go), one subject per replica, checked together.
func soakExtraSubjects(e *soakEnv, g *soakGroup) []*soakSubject {
	s := newSoakFactory(g)
	if _, err := s.addHandler("grow", "grow", false, e.viol, soakHandlerOpts{}); err != nil {
		e.t.Fatal(err)
	}
	ref := newSoakRefusing(g, "fanout-refusing")
	if _, err := ref.addHandler("grow", "grow", false, e.viol, soakHandlerOpts{}); err != nil {
		e.t.Fatal(err)
	}
	out := []*soakSubject{s, ref}
	if g.name == "main" {
		out = append(out, newSoakSharded(e, g)...)
	}
	return out
}

// newSoakFactory returns the factory-built fanout informer as a subject.
func newSoakFactory(g *soakGroup) *soakSubject {
	f := fanoutinformers.NewSharedInformerFactoryWithOptions(g.cs, 0,
		fanoutinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = g.selector }))
	inf, ok := clientgo.FanoutInformer(f.Core().V1().ConfigMaps().Informer())
	if !ok {
		panic("soak: the factory's ConfigMap informer is not a fanout informer")
	}
	return newSoakFanoutOn(g, "factory", inf, &gapLW{})
}
