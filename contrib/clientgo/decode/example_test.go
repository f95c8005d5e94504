package decode_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kfanout/fanout/contrib/clientgo/decode"
	"github.com/kfanout/fanout/contrib/clientgo/dynamicinformer"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

// ExampleWrap builds the clientset of an informer factory on a config
// whose responses never carry managedFields to the decoder, and shares
// what the cached objects have in common.
func ExampleWrap() {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	cs := kubernetes.NewForConfigOrDie(decode.Wrap(cfg, decode.Options{DropManagedFields: true}))
	transform := informer.ShareEqualValues() // SetTransform on each informer, before Run
	fmt.Println(cs != nil, transform != nil)
	// Output: true true
}

// ExampleNewClientset gives an informer factory a clientset whose
// informers decode Pods with fanout's decoder, over a config whose
// responses never carry managedFields. Objects from it are read-only.
// Protobuf is the leanest; JSON, client-go's default, is decoded by
// fanout's JSON decoder.
func ExampleNewClientset() {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := decode.NewClientset(decode.Wrap(cfg, decode.Options{DropManagedFields: true}))
	if err != nil {
		panic(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	pods := factory.Core().V1().Pods().Informer()
	fmt.Println(pods != nil)
	// Output: true
}

// ExampleDynamicClientFor gives a dynamic informer factory a client whose
// unstructured objects fanout's decoder builds, over a config whose
// responses never carry managedFields: custom resources, as operators
// watch them. Objects from it are read-only.
func ExampleDynamicClientFor() {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	dyn, err := decode.DynamicClientFor(decode.Wrap(cfg, decode.Options{DropManagedFields: true}))
	if err != nil {
		panic(err)
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	widgets := factory.ForResource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Informer()
	fmt.Println(widgets != nil)
	// Output: true
}
