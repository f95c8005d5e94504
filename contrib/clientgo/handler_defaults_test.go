package clientgo

import (
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/listener"
)

// TestHandlerOptionsDefaults checks how the adapter's defaults meet
// client-go's per-handler options: fanout's fields come from the
// defaults, client-go's Logger and ResyncPeriod win where given, and the
// name is the handler's unless the defaults set one.
func TestHandlerOptionsDefaults(t *testing.T) {
	h := cache.ResourceEventHandlerFuncs{}
	defaultResync, ownResync := time.Minute, time.Second
	defaultLogger, ownLogger := klog.Background().WithName("default"), klog.Background().WithName("own")
	defaults := informer.HandlerOptions{
		Logger: &defaultLogger, ResyncPeriod: &defaultResync,
		Overflow: informer.OverflowCoalesce, MaxPending: 7, Workers: 3, RecoverPanics: true,
	}
	got := handlerOptions(h, cache.HandlerOptions{}, defaults)
	if got.Logger != &defaultLogger || got.ResyncPeriod != &defaultResync || got.Overflow != informer.OverflowCoalesce ||
		got.MaxPending != 7 || got.Workers != 3 || !got.RecoverPanics || got.Name != listener.NameForHandler(h) {
		t.Errorf("without client-go options: %+v", got)
	}
	got = handlerOptions(h, cache.HandlerOptions{Logger: &ownLogger, ResyncPeriod: &ownResync}, defaults)
	if got.Logger != &ownLogger || got.ResyncPeriod != &ownResync || got.MaxPending != 7 {
		t.Errorf("with client-go options: %+v", got)
	}
	defaults.Name = "named"
	if got := handlerOptions(h, cache.HandlerOptions{}, defaults); got.Name != "named" {
		t.Errorf("named defaults: %q", got.Name)
	}
	if WrapWithHandlerDefaults(nil, defaults) != nil {
		t.Error("a nil informer was wrapped")
	}
}
