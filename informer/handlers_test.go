package informer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// callRecorder is a ResourceEventHandler that records every call as text.
type callRecorder struct{ calls []string }

func (r *callRecorder) OnAdd(obj any, initial bool) {
	r.calls = append(r.calls, fmt.Sprintf("add %v initial=%v", obj, initial))
}
func (r *callRecorder) OnUpdate(o, n any) {
	r.calls = append(r.calls, fmt.Sprintf("update %v->%v", o, n))
}
func (r *callRecorder) OnDelete(obj any) {
	r.calls = append(r.calls, fmt.Sprintf("delete %v", obj))
}

func TestResourceEventHandlerFuncsNilIsNoop(t *testing.T) {
	var h ResourceEventHandler = ResourceEventHandlerFuncs{}
	h.OnAdd("a", true)
	h.OnUpdate("a", "b")
	h.OnDelete("a")

	var got []string
	h = ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { got = append(got, fmt.Sprint("add ", o)) },
		UpdateFunc: func(o, n any) { got = append(got, fmt.Sprint("update ", o, n)) },
		DeleteFunc: func(o any) { got = append(got, fmt.Sprint("delete ", o)) },
	}
	h.OnAdd("a", true)
	h.OnUpdate("a", "b")
	h.OnDelete("b")
	assert.Equal(t, []string{"add a", "update ab", "delete b"}, got)
}

func TestResourceEventHandlerDetailedFuncsPassesInitialList(t *testing.T) {
	var got []bool
	h := ResourceEventHandlerDetailedFuncs{AddFunc: func(_ any, initial bool) { got = append(got, initial) }}
	h.OnAdd("a", true)
	h.OnAdd("b", false)
	h.OnUpdate("a", "b") // nil UpdateFunc: no-op
	h.OnDelete("a")
	assert.Equal(t, []bool{true, false}, got)
}

func TestFilteringResourceEventHandler(t *testing.T) {
	even := func(o any) bool { return o.(int)%2 == 0 }
	cases := []struct {
		name string
		do   func(h ResourceEventHandler)
		want []string
	}{
		{"add passes", func(h ResourceEventHandler) { h.OnAdd(2, true) }, []string{"add 2 initial=true"}},
		{"add filtered", func(h ResourceEventHandler) { h.OnAdd(1, true) }, nil},
		{"update both pass", func(h ResourceEventHandler) { h.OnUpdate(2, 4) }, []string{"update 2->4"}},
		{"update starts passing", func(h ResourceEventHandler) { h.OnUpdate(1, 4) }, []string{"add 4 initial=false"}},
		{"update stops passing", func(h ResourceEventHandler) { h.OnUpdate(2, 3) }, []string{"delete 2"}},
		{"update neither", func(h ResourceEventHandler) { h.OnUpdate(1, 3) }, nil},
		{"delete passes", func(h ResourceEventHandler) { h.OnDelete(2) }, []string{"delete 2"}},
		{"delete filtered", func(h ResourceEventHandler) { h.OnDelete(3) }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &callRecorder{}
			tc.do(FilteringResourceEventHandler{FilterFunc: even, Handler: rec})
			assert.Equal(t, tc.want, rec.calls)
		})
	}
}
