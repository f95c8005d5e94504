#!/usr/bin/env bash
# make e2e: builds etcd and kube-apiserver (cached), starts them on loopback,
# runs the end-to-end suite in ./e2e, and stops everything on exit, also on
# failure or interrupt. Extra arguments go to `go test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/hack/e2e

start=$SECONDS
"$here/build.sh"
export BIN_DIR=${BIN_DIR:-${FANOUT_E2E_CACHE:-$root/.cache/e2e}/bin}
echo "e2e: build step took $((SECONDS - start)) s" >&2

. "$here/lib.sh"
with_servers fanout-e2e

start_cluster
# TestSoak: a 2-minute soak (make soak runs longer ones).
export FANOUT_SOAK_DURATION=${FANOUT_SOAK_DURATION:-2m}
export FANOUT_SOAK_REPORT=${FANOUT_SOAK_REPORT:-$root/.cache/soak/e2e}
cd "$root/e2e"
# In the background, so that a signal to this script runs cleanup at once.
setsid bash -c 'set -o pipefail; GOWORK=off go test -count=1 -timeout "$0" -v "${@}" ./... 2>&1 | tee "$FANOUT_E2E_DIR/logs/go-test.out"' \
	"${E2E_TIMEOUT:-20m}" "$@" &
workload_pid=$!
wait "$workload_pid"
