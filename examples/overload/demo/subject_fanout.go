package demo

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/informer"
)

// fanoutSubject is fanout's shared informer; the overloaded handlers get
// overflow (and maxPending, unless overflow is OverflowGrow).
type fanoutSubject struct {
	inf        informer.SharedIndexInformer
	overflow   informer.OverflowPolicy
	maxPending int
}

func newFanoutSubject(src Source, overflow informer.OverflowPolicy, maxPending int) *fanoutSubject {
	return &fanoutSubject{
		inf:        informer.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil),
		overflow:   overflow,
		maxPending: maxPending,
	}
}

func (s *fanoutSubject) addHandler(name string, h handlerFuncs, overloaded bool) (Statser, error) {
	opts := informer.HandlerOptions{Name: name}
	if overloaded && s.overflow != informer.OverflowGrow {
		opts.Overflow, opts.MaxPending = s.overflow, s.maxPending
	}
	reg, err := s.inf.AddEventHandlerWithOptions(h, opts)
	if err != nil {
		return nil, err
	}
	st, ok := reg.(Statser)
	if !ok {
		return nil, fmt.Errorf("registration %T has no Stats method", reg)
	}
	return st, nil
}

func (s *fanoutSubject) run(ctx context.Context) { s.inf.RunWithContext(ctx) }

func (s *fanoutSubject) hasSynced() bool { return s.inf.HasSynced() }

func (s *fanoutSubject) showOn(page *debugpage.Page, title string) (func(), error) {
	if err := page.Register(title, s.inf); err != nil {
		return nil, err
	}
	return func() { page.Unregister(title) }, nil
}
