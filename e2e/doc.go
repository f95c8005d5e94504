// Package e2e holds fanout's end-to-end suite: fanout informers and
// client-go informers side by side against a real kube-apiserver and etcd.
//
// The tests skip unless FANOUT_E2E_KUBECONFIG is set; `make e2e` builds the
// servers, starts them on loopback (hack/e2e/cluster.sh), sets it and runs
// the suite.
package e2e
