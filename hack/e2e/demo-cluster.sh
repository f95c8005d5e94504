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

state=$(mktemp -d "${TMPDIR:-/tmp}/fanout-demo-cluster.XXXXXX")
demo_pid=
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# The demo runs in its own process group: end it before the servers.
	if [[ -n $demo_pid ]] && kill -0 "$demo_pid" 2>/dev/null; then
		kill -TERM -- "-$demo_pid" 2>/dev/null || true
		wait "$demo_pid" 2>/dev/null || true
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

# Build first, so that a compile error does not wait for the servers.
(cd "$root/e2e" && GOWORK=off go build -o "$state/democluster" ./cmd/democluster)
"$here/cluster.sh" up "$state"

# In the background, so that a signal to this script runs cleanup at once.
setsid "$state/democluster" -kubeconfig "$state/kubeconfig" "$@" &
demo_pid=$!
wait "$demo_pid"
