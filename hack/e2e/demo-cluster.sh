#!/usr/bin/env bash
# make demo-cluster: the overload demo against a real kube-apiserver.
# Builds etcd and kube-apiserver (cached, as make e2e does), starts them on
# loopback, runs e2e/cmd/democluster against them and stops everything on
# exit, also on failure or interrupt. Extra arguments go to democluster
# (for example -rate 1500 -duration 20s; see -help).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/hack/e2e

"$here/build.sh"

. "$here/lib.sh"
with_servers fanout-demo-cluster

# Build first, so that a compile error does not wait for the servers.
(cd "$root/e2e" && GOWORK=off go build -o "$state/democluster" ./cmd/democluster)
"$here/cluster.sh" up "$state"

# In the background, so that a signal to this script runs cleanup at once.
setsid "$state/democluster" -kubeconfig "$state/kubeconfig" "$@" &
workload_pid=$!
wait "$workload_pid"
