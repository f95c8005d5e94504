#!/usr/bin/env bash
# make soak: builds etcd and kube-apiserver (cached, as make e2e does),
# starts them on loopback and runs the soak (TestSoak in ./e2e): a seeded
# random workload with faults injected, fanout's informers next to
# client-go's, invariants checked as it runs and at the end. Stops every
# process on exit, also on failure or interrupt.
#
# Environment: SOAK_DURATION (default 10m), SOAK_SEED (default: random,
# printed), SOAK_RATE (writes/s, default 40), SOAK_REPORT (directory for
# soak.json, summary.txt and timeline.png; default .cache/soak/<time>).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/hack/e2e

"$here/build.sh"
export BIN_DIR=${BIN_DIR:-${FANOUT_E2E_CACHE:-$root/.cache/e2e}/bin}

. "$here/lib.sh"
with_servers fanout-soak

start_cluster
export FANOUT_SOAK_DURATION=${SOAK_DURATION:-10m}
export FANOUT_SOAK_SEED=${SOAK_SEED:-}
export FANOUT_SOAK_RATE=${SOAK_RATE:-}
export FANOUT_SOAK_REPORT=${SOAK_REPORT:-$root/.cache/soak/$(date +%Y%m%d-%H%M%S)}
# go test's timeout: the soak, plus setup, the final checks and a margin.
secs=0 rest=$FANOUT_SOAK_DURATION
while [[ $rest =~ ^([0-9]+)([hms])(.*)$ ]]; do
	case ${BASH_REMATCH[2]} in
	h) secs=$((secs + BASH_REMATCH[1] * 3600)) ;;
	m) secs=$((secs + BASH_REMATCH[1] * 60)) ;;
	s) secs=$((secs + BASH_REMATCH[1])) ;;
	esac
	rest=${BASH_REMATCH[3]}
done
[[ -z $rest && $secs -gt 0 ]] || { echo "soak: SOAK_DURATION=$FANOUT_SOAK_DURATION: want a duration such as 10m or 1h30m" >&2; exit 2; }
cd "$root/e2e"
setsid bash -c 'set -o pipefail; GOWORK=off go test -count=1 -timeout "$0" -v -run "^TestSoak$" . 2>&1 | tee "$FANOUT_E2E_DIR/logs/go-test.out"' \
	"$((secs + 900))s" &
workload_pid=$!
wait "$workload_pid"
