package listener

import (
	"strings"
	"testing"
)

// ResourceEventHandlerFuncs mirrors client-go's (and informer's) type of the
// same name, which NameForHandler recognises by shape.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj any)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

func (r ResourceEventHandlerFuncs) OnAdd(obj any, _ bool)       {}
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj any) {}
func (r ResourceEventHandlerFuncs) OnDelete(obj any)            {}

type namedHandler struct{}

func onAddA(any)                       {}
func onUpdateA(any, any)               {}
func (namedHandler) method(any)        {}
func (namedHandler) OnAdd(any, bool)   {}
func (namedHandler) OnUpdate(_, _ any) {}
func (namedHandler) OnDelete(any)      {}

const pkg = "github.com/kfanout/fanout/internal/listener"

func TestNameForHandler(t *testing.T) {
	var nh namedHandler
	for _, tc := range []struct {
		name    string
		handler Handler
		want    string
	}{
		{"pointer to struct", &recorder{}, pkg + ".recorder"},
		{"struct", namedHandler{}, pkg + ".namedHandler"},
		{"funcs from one package", ResourceEventHandlerFuncs{AddFunc: onAddA, UpdateFunc: onUpdateA}, pkg},
		{"pointer to funcs", &ResourceEventHandlerFuncs{AddFunc: onAddA}, pkg},
		{"funcs from different qualifiers", ResourceEventHandlerFuncs{AddFunc: onAddA, DeleteFunc: nh.method},
			pkg + ".onAddA+" + pkg + ".namedHandler.method-fm"},
		{"empty funcs fall back to %T", ResourceEventHandlerFuncs{}, "listener.ResourceEventHandlerFuncs"},
		{"nil", nil, "<nil>"},
	} {
		if got := NameForHandler(tc.handler); got != tc.want {
			t.Errorf("%s: NameForHandler = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestListenerName(t *testing.T) {
	p := NewProcessor(ProcessorOptions{})
	l, err := p.NewListener(&recorder{}, Binding{UpstreamHasSynced: newUpstream("SharedIndexInformer *v1.Pod")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Name(), pkg+".recorder"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	if got, want := l.HasSyncedChecker().Name(), "SharedIndexInformer *v1.Pod + event handler "+pkg+".recorder"; got != want {
		t.Errorf("checker Name() = %q, want %q", got, want)
	}
}

func TestBadInput(t *testing.T) {
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("x")
	for _, tc := range []struct {
		name    string
		handler Handler
		bind    Binding
		opts    Options
		wantErr string
	}{
		{"nil handler", nil, Binding{UpstreamHasSynced: up}, Options{}, "handler is nil"},
		{"nil upstream", &recorder{}, Binding{}, Options{}, "UpstreamHasSynced is nil"},
		{"negative period", &recorder{}, Binding{UpstreamHasSynced: up, ResyncPeriod: -1}, Options{}, "negative resync period"},
	} {
		if _, err := p.NewListener(tc.handler, tc.bind, tc.opts); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: NewListener error = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
	if _, err := p.AddListener(nil); err == nil {
		t.Error("AddListener(nil) succeeded")
	}
	l, err := p.NewListener(&recorder{}, Binding{UpstreamHasSynced: up}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewProcessor(ProcessorOptions{}).AddListener(l); err == nil {
		t.Error("AddListener to another processor succeeded")
	}
	if _, err := p.AddListener(l); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddListener(l); err == nil || !strings.Contains(err.Error(), "already added") {
		t.Errorf("second AddListener error = %v, want already added", err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Add: "add", Update: "update", Delete: "delete", 0: "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}
