#!/usr/bin/env bash
# make e2e: builds etcd and kube-apiserver (cached), starts them on loopback,
# runs the end-to-end suite in ./e2e, and stops everything on exit, also on
# failure or interrupt. Extra arguments go to `go test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/hack/e2e

start=$SECONDS
"$here/build.sh"
echo "e2e: build step took $((SECONDS - start)) s" >&2

state=$(mktemp -d "${TMPDIR:-/tmp}/fanout-e2e.XXXXXX")
test_pid=
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# The suite runs in its own process group: end it before the servers.
	if [[ -n $test_pid ]] && kill -0 "$test_pid" 2>/dev/null; then
		kill -TERM -- "-$test_pid" 2>/dev/null || true
		wait "$test_pid" 2>/dev/null || true
	fi
	if [[ $rc -ne 0 && -d $state/logs ]]; then
		for f in "$state"/logs/*.log; do
			echo "== last lines of $(basename "$f")" >&2
			tail -15 "$f" >&2 || true
		done
	fi
	"$here/cluster.sh" down "$state" || true
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$here/cluster.sh" up "$state"

export FANOUT_E2E_KUBECONFIG=$state/kubeconfig
export FANOUT_E2E_DIR=$state
export FANOUT_E2E_CTL=$here/cluster.sh
cd "$root/e2e"
# In the background, so that a signal to this script runs cleanup at once.
setsid bash -c 'set -o pipefail; GOWORK=off go test -count=1 -timeout "$0" -v "${@}" ./... 2>&1 | tee "$FANOUT_E2E_DIR/logs/go-test.out"' \
	"${E2E_TIMEOUT:-20m}" "$@" &
test_pid=$!
wait "$test_pid"
