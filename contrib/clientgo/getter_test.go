package clientgo

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"

	"github.com/kfanout/fanout/informer"
)

// TestGetterInfersFromRESTInterface checks the allow-listed Getter
// difference: a client-go rest.Interface (what every typed clientset's
// RESTClient() returns) is accepted by fanout's generic
// NewListWatchFromClient and NewFilteredListWatchFromClient without type
// arguments, as by client-go's.
func TestGetterInfersFromRESTInterface(t *testing.T) {
	var c rest.Interface = &rest.RESTClient{}
	lw := informer.NewListWatchFromClient(c, "pods", "ns", fields.Everything())
	require.NotNil(t, lw.ListWithContextFunc)
	lw = informer.NewFilteredListWatchFromClient(c, "pods", "ns", func(*metav1.ListOptions) {})
	require.NotNil(t, lw.WatchFuncWithContext)
}
