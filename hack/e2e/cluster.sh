#!/usr/bin/env bash
# Starts and stops a throwaway control plane on loopback for the end-to-end
# suite: one etcd and two kube-apiservers sharing it, "main" (the default
# watch cache) and "nocache" (--watch-cache=false, so that a watch from a
# compacted revision gets a real 410 Gone), plus "sharded"
# (--feature-gates=ShardedListAndWatch=true, for contrib/sharding's test)
# unless FANOUT_E2E_SHARDED=0.
#
# Usage: hack/e2e/cluster.sh COMMAND STATE_DIR [ARGS]
#   up STATE_DIR                    generate keys and tokens, start everything, wait until ready
#   down STATE_DIR                  stop every process that up started; remove STATE_DIR
#   stop-apiserver STATE_DIR NAME   stop apiserver NAME (main or nocache)
#   start-apiserver STATE_DIR NAME  start it again with the same flags, wait until ready
#   restart-apiserver STATE_DIR NAME
#   compact STATE_DIR               compact etcd at its current revision; prints the revision
#
# STATE_DIR holds:
#   kubeconfig, kubeconfig-nocache  admin (system:masters) on main / nocache
#   kubeconfig-sharded              admin on sharded (when started)
#   kubeconfig-limited              a user with no RBAC grants, on main
#   *.pid, logs/*.log, pki/, etcd/
# BIN_DIR (default <repo>/.cache/e2e/bin) holds etcd, etcdctl and kube-apiserver.
# Every listener is on 127.0.0.1.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$root/.cache/e2e/bin}

log() { echo "e2e-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

# free_port prints a TCP port that nothing listens on at 127.0.0.1 and that
# no earlier call in this state dir handed out. It picks below the kernel's
# ephemeral range, so that no outgoing connection (the apiservers' to etcd,
# the tests' to the apiservers) can take a port while its server is down,
# for example during the restart test.
free_port() {
	local p low
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	((low > 21000)) || die "the ephemeral port range starts at $low: no room below it"
	for _ in $(seq 1 200); do
		p=$((20000 + RANDOM % (low - 20000)))
		if grep -qx "$p" "$state/ports" 2>/dev/null; then continue; fi
		if [[ -n $(ss -Htan "sport = :$p") ]]; then continue; fi
		echo "$p" >>"$state/ports"
		echo "$p"
		return
	done
	die "no free port found"
}

# alive PID BINARY: true while PID runs BINARY (guards against PID reuse).
alive() {
	[[ -r /proc/$1/cmdline ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q -- "$2"
}

# stop_pid NAME BINARY [GRACE]: SIGTERM the process in NAME.pid, SIGKILL
# after GRACE seconds (default 15). kube-apiserver keeps draining its
# watches for a while after SIGTERM; a test that only needs the watches
# dropped passes a short grace.
stop_pid() {
	local f=$state/$1.pid pid grace=${3:-15}
	[[ -f $f ]] || return 0
	pid=$(cat "$f")
	if alive "$pid" "$2"; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 $((grace * 10))); do
			alive "$pid" "$2" || break
			sleep 0.1
		done
		if alive "$pid" "$2"; then
			log "$1 (pid $pid) still running ${grace}s after SIGTERM; killing"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.2
		fi
	fi
	rm -f "$f"
}

gen_pki() {
	local pki=$state/pki
	mkdir -p "$pki"
	openssl genrsa -out "$pki/ca.key" 2048 2>/dev/null
	openssl req -x509 -new -key "$pki/ca.key" -days 2 -subj "/CN=fanout-e2e-ca" -out "$pki/ca.crt" 2>/dev/null
	openssl genrsa -out "$pki/serving.key" 2048 2>/dev/null
	openssl req -new -key "$pki/serving.key" -subj "/CN=127.0.0.1" -out "$pki/serving.csr" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$pki/serving.ext"
	openssl x509 -req -in "$pki/serving.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
		-days 2 -extfile "$pki/serving.ext" -out "$pki/serving.crt" 2>/dev/null
	openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
	openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
	local admin limited
	admin=$(openssl rand -hex 16)
	limited=$(openssl rand -hex 16)
	printf '%s,fanout-admin,fanout-admin,"system:masters"\n%s,fanout-limited,fanout-limited\n' \
		"$admin" "$limited" >"$pki/tokens.csv"
	echo "$admin" >"$pki/admin.token"
	echo "$limited" >"$pki/limited.token"
}

# write_kubeconfig FILE PORT TOKEN
write_kubeconfig() {
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: https://127.0.0.1:$2
    certificate-authority: $state/pki/ca.crt
users:
- name: e2e
  user:
    token: $3
contexts:
- name: e2e
  context:
    cluster: e2e
    user: e2e
current-context: e2e
EOF
}

# start_etcd starts etcd on the ports recorded in $state/env, or on free
# ones that it records (the first start).
start_etcd() {
	local client peer
	client=$(sed -n 's/^ETCD_CLIENT_PORT=//p' "$state/env")
	peer=$(sed -n 's/^ETCD_PEER_PORT=//p' "$state/env")
	if [[ -z $client ]]; then
		client=$(free_port)
		peer=$(free_port)
		echo "ETCD_CLIENT_PORT=$client" >>"$state/env"
		echo "ETCD_PEER_PORT=$peer" >>"$state/env"
	fi
	"$bin/etcd" --name e2e --data-dir "$state/etcd" \
		--listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
		--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "e2e=http://127.0.0.1:$peer" --unsafe-no-fsync --log-level=warn \
		>>"$state/logs/etcd.log" 2>&1 </dev/null &
	echo $! >"$state/etcd.pid"
	for _ in $(seq 1 300); do
		if "$bin/etcdctl" --endpoints "http://127.0.0.1:$client" endpoint health >/dev/null 2>&1; then
			log "etcd ready on 127.0.0.1:$client"
			return
		fi
		alive "$(cat "$state/etcd.pid")" "$bin/etcd" || { tail -20 "$state/logs/etcd.log" >&2; die "etcd exited"; }
		sleep 0.2
	done
	die "etcd not healthy after 60 s"
}

# start_apiserver NAME: starts apiserver NAME on the port recorded for it.
start_apiserver() {
	local name=$1 port extra=()
	port=$(sed -n "s/^APISERVER_${name^^}_PORT=//p" "$state/env")
	[[ -n $port ]] || die "unknown apiserver $name"
	[[ $name == nocache ]] && extra+=(--watch-cache=false)
	[[ $name == sharded ]] && extra+=(--feature-gates=ShardedListAndWatch=true)
	"$bin/kube-apiserver" \
		--etcd-servers "http://127.0.0.1:$ETCD_CLIENT_PORT" --etcd-compaction-interval=0 \
		--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port "$port" \
		--tls-cert-file "$state/pki/serving.crt" --tls-private-key-file "$state/pki/serving.key" \
		--endpoint-reconciler-type=none --service-cluster-ip-range=10.0.0.0/24 \
		--service-account-issuer "https://127.0.0.1:$port" \
		--service-account-key-file "$state/pki/sa.pub" --service-account-signing-key-file "$state/pki/sa.key" \
		--token-auth-file "$state/pki/tokens.csv" --anonymous-auth=false --authorization-mode=RBAC \
		--disable-admission-plugins=ServiceAccount --profiling=false \
		"${extra[@]}" >>"$state/logs/apiserver-$name.log" 2>&1 </dev/null &
	echo $! >"$state/apiserver-$name.pid"
}

wait_apiserver() {
	local name=$1 port token pid
	port=$(sed -n "s/^APISERVER_${name^^}_PORT=//p" "$state/env")
	token=$(cat "$state/pki/admin.token")
	pid=$(cat "$state/apiserver-$name.pid")
	for _ in $(seq 1 600); do
		if curl -fsS --max-time 2 --cacert "$state/pki/ca.crt" -H "Authorization: Bearer $token" \
			"https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
			log "kube-apiserver $name ready on 127.0.0.1:$port"
			return
		fi
		alive "$pid" "$bin/kube-apiserver" || { tail -30 "$state/logs/apiserver-$name.log" >&2; die "kube-apiserver $name exited"; }
		sleep 0.2
	done
	tail -30 "$state/logs/apiserver-$name.log" >&2
	die "kube-apiserver $name not ready after 120 s"
}

load_env() {
	[[ -f $state/env ]] || die "$state is not a started cluster"
	# shellcheck disable=SC1091
	source "$state/env"
}

cmd=${1:-}
[[ $# -ge 2 ]] || die "usage: $0 up|down|stop-apiserver|start-apiserver|restart-apiserver|start-etcd|compact STATE_DIR [NAME]"
state=$2
case $cmd in
up)
	for b in etcd etcdctl kube-apiserver; do [[ -x $bin/$b ]] || die "$bin/$b missing: run hack/e2e/build.sh"; done
	for tool in openssl curl ss; do
		command -v "$tool" >/dev/null || die "$tool not found (Debian packages: openssl, curl, iproute2)"
	done
	mkdir -p "$state/logs"
	state=$(cd "$state" && pwd)
	: >"$state/env"
	gen_pki
	start_etcd
	load_env
	names=(main nocache)
	[[ ${FANOUT_E2E_SHARDED:-1} == 0 ]] || names+=(sharded)
	for name in "${names[@]}"; do
		echo "APISERVER_${name^^}_PORT=$(free_port)" >>"$state/env"
	done
	for name in "${names[@]}"; do start_apiserver "$name"; done
	for name in "${names[@]}"; do wait_apiserver "$name"; done
	load_env
	if [[ -n ${APISERVER_SHARDED_PORT:-} ]]; then
		write_kubeconfig "$state/kubeconfig-sharded" "$APISERVER_SHARDED_PORT" "$(cat "$state/pki/admin.token")"
	fi
	write_kubeconfig "$state/kubeconfig" "$APISERVER_MAIN_PORT" "$(cat "$state/pki/admin.token")"
	write_kubeconfig "$state/kubeconfig-nocache" "$APISERVER_NOCACHE_PORT" "$(cat "$state/pki/admin.token")"
	write_kubeconfig "$state/kubeconfig-limited" "$APISERVER_MAIN_PORT" "$(cat "$state/pki/limited.token")"
	;;
down)
	[[ -d $state ]] || exit 0
	stop_pid apiserver-main "$bin/kube-apiserver"
	stop_pid apiserver-nocache "$bin/kube-apiserver"
	stop_pid apiserver-sharded "$bin/kube-apiserver"
	stop_pid etcd "$bin/etcd"
	if [[ -n ${FANOUT_E2E_KEEP_STATE:-} ]]; then
		log "state kept in $state"
	else
		rm -rf "$state"
	fi
	;;
stop-apiserver)
	load_env
	stop_pid "apiserver-${3:?name}" "$bin/kube-apiserver" 3
	;;
start-apiserver)
	load_env
	start_apiserver "${3:?name}"
	wait_apiserver "$3"
	;;
restart-apiserver)
	load_env
	stop_pid "apiserver-${3:?name}" "$bin/kube-apiserver" 3
	start_apiserver "$3"
	wait_apiserver "$3"
	;;
start-etcd)
	load_env
	start_etcd
	;;
compact)
	load_env
	rev=$("$bin/etcdctl" --endpoints "http://127.0.0.1:$ETCD_CLIENT_PORT" endpoint status -w json |
		grep -o '"revision":[0-9]*' | head -1 | cut -d: -f2)
	[[ -n $rev ]] || die "cannot read etcd revision"
	"$bin/etcdctl" --endpoints "http://127.0.0.1:$ETCD_CLIENT_PORT" compact "$rev" >/dev/null
	echo "$rev"
	;;
*)
	die "unknown command $cmd"
	;;
esac
