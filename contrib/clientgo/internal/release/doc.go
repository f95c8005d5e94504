// Package release knows which client-go releases fanout's factories
// support and which one the running binary links. The factories read
// nothing of client-go's internals: they build informers from client-go's
// exported API only, so a release is supported once its generated
// clientset and informer packages have been run through the factories'
// tests (make compat); Check fails, naming the supported range, for any
// other release.
package release
