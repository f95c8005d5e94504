# Sourced by run.sh and demo-cluster.sh: a temporary state dir for the
# servers, and a cleanup that runs on exit, also on failure or a signal.
#
# with_servers PREFIX makes the state dir (in $state) and installs
# the traps. The caller then starts its workload with setsid in the
# background and stores its pid in $workload_pid; cleanup ends that process
# group before it stops the servers, and shows the servers' last log lines
# when the script fails.

with_servers() {
	state=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	workload_pid=
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n $workload_pid ]] && kill -0 "$workload_pid" 2>/dev/null; then
		kill -TERM -- "-$workload_pid" 2>/dev/null || true
		wait "$workload_pid" 2>/dev/null || true
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

# start_cluster starts the servers in $state and exports what the ./e2e
# tests read: the admin kubeconfig, the state dir and the control script.
start_cluster() {
	"$here/cluster.sh" up "$state"
	export FANOUT_E2E_KUBECONFIG=$state/kubeconfig
	export FANOUT_E2E_DIR=$state
	export FANOUT_E2E_CTL=$here/cluster.sh
}
