package metadatainformer_test

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata/fake"

	// "k8s.io/client-go/metadata/metadatainformer"
	"github.com/kfanout/fanout/contrib/clientgo/metadatainformer"
)

func ExampleNewSharedInformerFactory() {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	meta := func(ns, name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		}
	}
	// A real program passes metadata.NewForConfig(cfg).
	scheme := fake.NewTestScheme()
	_ = metav1.AddMetaToScheme(scheme)
	client := fake.NewSimpleMetadataClient(scheme, meta("default", "web"), meta("kube-system", "dns"))

	f := metadatainformer.NewSharedInformerFactory(client, 0)
	deployments := f.ForResource(gvr)

	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())

	objs, _ := deployments.Lister().List(labels.Everything())
	var keys []string
	for _, o := range objs {
		m := o.(*metav1.PartialObjectMetadata)
		keys = append(keys, m.Namespace+"/"+m.Name)
	}
	sort.Strings(keys)
	fmt.Println(keys)
	// Output: [default/web kube-system/dns]
}
