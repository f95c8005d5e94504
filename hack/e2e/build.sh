#!/usr/bin/env bash
# Builds etcd and kube-apiserver for the end-to-end suite from the Go module
# proxy into a git-ignored cache directory. Versions are pinned below; a run
# whose binaries already match the pinned versions does nothing.
#
# Usage: hack/e2e/build.sh [CACHE_DIR]   (default: <repo>/.cache/e2e)
# Prints nothing but progress on stderr; the binaries land in CACHE_DIR/bin.
set -euo pipefail

ETCD_VERSION=v3.7.3
KUBE_VERSION=v1.37.2
# The staging modules of k8s.io/kubernetes are published as v0.<minor>.<patch>.
STAGING_VERSION=v0.37.2

root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-${FANOUT_E2E_CACHE:-$root/.cache/e2e}}
mkdir -p "$cache/bin" "$cache/src"
cache=$(cd "$cache" && pwd)
bin=$cache/bin

# The scratch modules must not see the repository's go.work.
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
# Stripped binaries; the same flags on every run keep the build cache valid.
common_ldflags="-s -w"

log() { echo "e2e-build: $*" >&2; }

# quiet CMD...: runs CMD with its output in a log, shown only on failure
# (go get lists every module it downloads).
quiet() {
	local out
	out=$(mktemp)
	if ! "$@" >"$out" 2>&1; then
		cat "$out" >&2
		rm -f "$out"
		return 1
	fi
	rm -f "$out"
}

# stamp_ok NAME WANT: true when bin/NAME exists and was built with WANT.
stamp_ok() {
	[[ -x $bin/$1 && -f $bin/$1.stamp && "$(cat "$bin/$1.stamp")" == "$2" ]]
}

build_etcd() {
	local want="etcd $ETCD_VERSION $(go env GOVERSION)"
	if stamp_ok etcd "$want" && stamp_ok etcdctl "$want"; then
		log "etcd $ETCD_VERSION already built"
		return
	fi
	local dir=$cache/src/etcd
	rm -rf "$dir" && mkdir -p "$dir"
	log "building etcd $ETCD_VERSION"
	(
		cd "$dir"
		go mod init fanout.local/e2e/etcd >/dev/null 2>&1
		quiet go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" "go.etcd.io/etcd/etcdctl/v3@$ETCD_VERSION"
		go build -ldflags "$common_ldflags" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
		go build -ldflags "$common_ldflags" -o "$bin/etcdctl.tmp" go.etcd.io/etcd/etcdctl/v3
	)
	mv "$bin/etcd.tmp" "$bin/etcd" && echo "$want" >"$bin/etcd.stamp"
	mv "$bin/etcdctl.tmp" "$bin/etcdctl" && echo "$want" >"$bin/etcdctl.stamp"
}

build_kube_apiserver() {
	local want="kube-apiserver $KUBE_VERSION $(go env GOVERSION)"
	if stamp_ok kube-apiserver "$want"; then
		log "kube-apiserver $KUBE_VERSION already built"
		return
	fi
	local dir=$cache/src/kube-apiserver
	rm -rf "$dir" && mkdir -p "$dir"
	log "building kube-apiserver $KUBE_VERSION (cold: 12-18 min on 2 cores)"
	(
		cd "$dir"
		go mod init fanout.local/e2e/kube-apiserver >/dev/null 2>&1
		# k8s.io/kubernetes requires its staging modules at v0.0.0 and points
		# them at ./staging with replace directives, which do not apply to a
		# dependency: replace each one with its published version.
		local kmod
		kmod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
		[[ -f $kmod ]] || { log "cannot find the go.mod of k8s.io/kubernetes@$KUBE_VERSION"; exit 1; }
		local staging
		staging=$(awk '
			/^require[[:space:]]*\(/ { inreq = 1; next }
			inreq && /^\)/ { inreq = 0; next }
			inreq && $2 == "v0.0.0" { print $1 }
			/^require[[:space:]]+[^(]/ && $3 == "v0.0.0" { print $2 }
		' "$kmod" | sort -u)
		[[ -n $staging ]] || { log "no v0.0.0 requirements found in $kmod"; exit 1; }
		{
			echo
			echo "require k8s.io/kubernetes $KUBE_VERSION"
			echo
			echo "replace ("
			for m in $staging; do echo "	$m => $m $STAGING_VERSION"; done
			echo ")"
		} >>go.mod
		log "$(echo "$staging" | wc -l) staging modules replaced at $STAGING_VERSION"
		quiet go get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBE_VERSION"
		local minor=${KUBE_VERSION#v1.}
		minor=${minor%%.*}
		local vars=""
		for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
			vars+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
			vars+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
		done
		go build -ldflags "$common_ldflags$vars" -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	)
	mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
	echo "$want" >"$bin/kube-apiserver.stamp"
}

case "${E2E_BUILD_ONLY:-all}" in
etcd) build_etcd ;;
kube-apiserver) build_kube_apiserver ;;
*) build_etcd; build_kube_apiserver ;;
esac
log "binaries in $bin"
