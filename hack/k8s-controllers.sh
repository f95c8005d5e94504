#!/usr/bin/env bash
# make k8s-controllers: Kubernetes' own controllers switched to fanout by
# cmd/fanout-migrate with zero hand edits (issue 24's proof).
#
# A scratch copy of k8s.io/kubernetes from the module proxy (its staging
# modules replaced by their published versions, as hack/e2e/build.sh does),
# then, for the packages below:
#   1. go vet and go test on client-go (the baseline);
#   2. fanout-migrate in its default mode (the type-identical
#      contrib/clientgo/cache and fanout's factories): it must exit 0 and
#      report nothing;
#   3. go build, go vet and go test again, against this repository's
#      fanout: every test and subtest that passed on client-go must pass
#      (by name), no other may fail, and a package that passed must pass.
# Results are read from go test -json, whose pass/fail events do not depend
# on how the tests' concurrent output interleaves with the -v lines.
#
#   hack/k8s-controllers.sh
#   K8S_VERSION=v1.35.4 hack/k8s-controllers.sh
#   K8S_PACKAGES="deployment job" hack/k8s-controllers.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kube="${K8S_VERSION:-v1.37.2}"
minor="${kube#v1.}"
staging_version="v0.${minor}"
packages="${K8S_PACKAGES:-deployment replicaset job cronjob daemon podautoscaler garbagecollector endpointslice statefulset serviceaccount}"
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
log() { echo "== [$(date -u +%H:%M:%S)] $*"; }
start=$(date +%s)

dir=$(go mod download -json "k8s.io/kubernetes@$kube" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -d "$dir" ] || { echo "cannot download k8s.io/kubernetes@$kube" >&2; exit 1; }
k="$scratch/kubernetes"
cp -r "$dir" "$k" && chmod -R u+w "$k"
cd "$k" || exit 1
# ./staging is not part of the module zip: point every staging replace at
# the published release of the same minor and patch.
sed -i -E "s#^([[:space:]]*)(k8s\.io/[a-z0-9-]+) => \./staging/src/k8s\.io/[a-z0-9-]+#\1\2 => \2 ${staging_version}#" go.mod
pkgs=()
for p in $packages; do pkgs+=("./pkg/controller/$p/..."); done
log "k8s.io/kubernetes $kube (staging $staging_version), packages: $packages"

# results LOG: "pass|fail PACKAGE TEST" for every test and subtest of a go
# test -json log.
results() {
  grep -aE '"Action":"(pass|fail)","Package":"[^"]*","Test":' "$1" |
    sed -E 's/.*"Action":"(pass|fail)","Package":"([^"]*)","Test":"([^"]*)".*/\1 \2 \3/' | sort
}
# counts LOG: "passed failed" of tests and subtests.
counts() { echo "$(results "$1" | grep -c '^pass ') $(results "$1" | grep -c '^fail ')"; }
# okpkgs LOG: the packages that passed.
okpkgs() { grep -aE '"Action":"pass","Package":"[^"]*","Elapsed"' "$1" | sed -E 's/.*"Package":"([^"]*)".*/\1/' | sort; }

log "baseline on client-go: vet, test"
t0=$(date +%s)
go vet "${pkgs[@]}" > "$scratch/vet-before.log" 2>&1; vet_before=$?
go test -count=1 -timeout 30m -json "${pkgs[@]}" > "$scratch/test-before.log" 2>&1
read -r pass_before fail_before <<<"$(counts "$scratch/test-before.log")"
log "baseline: vet exit $vet_before, $pass_before passed, $fail_before failed ($(( $(date +%s) - t0 ))s)"

log "fanout-migrate"
go build -C "$root" -o "$scratch/fanout-migrate" ./cmd/fanout-migrate || exit 1
"$scratch/fanout-migrate" "${pkgs[@]}" > "$scratch/migrate.out" 2> "$scratch/migrate.report"
migrate_rc=$?
echo "rewrote $(grep -c '^rewrote' "$scratch/migrate.out") files; report: $(grep -c . "$scratch/migrate.report") lines; exit $migrate_rc"
cat "$scratch/migrate.report"
go mod edit -require=github.com/kfanout/fanout@v0.0.0 -replace="github.com/kfanout/fanout=$root" \
  -require=github.com/kfanout/fanout/contrib/clientgo@v0.0.0 -replace="github.com/kfanout/fanout/contrib/clientgo=$root/contrib/clientgo"

log "on fanout: build, vet, test"
t0=$(date +%s)
go build "${pkgs[@]}"; build_rc=$?
go vet "${pkgs[@]}" > "$scratch/vet-after.log" 2>&1; vet_after=$?
go test -count=1 -timeout 30m -json "${pkgs[@]}" > "$scratch/test-after.log" 2>&1
read -r pass_after fail_after <<<"$(counts "$scratch/test-after.log")"
log "fanout: build exit $build_rc, vet exit $vet_after, $pass_after passed, $fail_after failed ($(( $(date +%s) - t0 ))s)"
# Proof the switched code runs fanout: the migrated files import it.
switched=$(grep -rl 'github.com/kfanout/fanout/contrib/clientgo' --include=*.go pkg/controller | wc -l)

rc=0
if [ "$migrate_rc" -ne 0 ] || [ -s "$scratch/migrate.report" ]; then echo "FAIL: fanout-migrate reported (hand edits needed)"; rc=1; fi
if [ "$build_rc" -ne 0 ]; then echo "FAIL: the switched packages do not build"; rc=1; fi
if [ "$vet_after" -ne "$vet_before" ]; then echo "FAIL: vet exit $vet_after on fanout, $vet_before on client-go"; grep -v '^#' "$scratch/vet-after.log" | head -40; rc=1; fi
lost=$(comm -23 <(results "$scratch/test-before.log" | sed -n 's/^pass //p') <(results "$scratch/test-after.log" | sed -n 's/^pass //p'))
newfail=$(comm -13 <(results "$scratch/test-before.log" | sed -n 's/^fail //p') <(results "$scratch/test-after.log" | sed -n 's/^fail //p'))
if [ -n "$lost" ] || [ -n "$newfail" ]; then
  echo "FAIL: tests on fanout $pass_after passed / $fail_after failed, on client-go $pass_before / $fail_before"
  echo "passed on client-go, not on fanout:"; echo "$lost" | head -40
  echo "failed on fanout only:"; echo "$newfail" | head -40
  rc=1
fi
missing=$(comm -23 <(okpkgs "$scratch/test-before.log") <(okpkgs "$scratch/test-after.log"))
if [ -n "$missing" ]; then echo "FAIL: packages that pass on client-go but not on fanout:"; echo "$missing"; rc=1; fi
echo "k8s-controllers $kube: $switched files import fanout; packages $(okpkgs "$scratch/test-after.log" | wc -l) ok; tests $pass_after/$((pass_after + fail_after)) on fanout, $pass_before/$((pass_before + fail_before)) on client-go; hand edits 0; $(( $(date +%s) - start ))s"
exit $rc
