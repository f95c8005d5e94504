#!/usr/bin/env bash
# make compat: every supported client-go/controller-runtime pair, each in a
# scratch copy of this tree (mktemp -d) where `go get` sets the versions.
# The default pairs are the client-go of a Kubernetes release (v1.35.4,
# v1.36.3, v1.37.2: the releases whose k8s.io/kubernetes the proxy serves),
# with the controller-runtime minor built on it: sample-controller and
# Kubernetes' controllers of that release then link the same client-go, so
# every step of a pair shares one build of it.
#   1. every user module (root, contrib/clientgo, contrib/prometheus,
#      contrib/sharding) is tidied, built, vetted and tested against the
#      pair, alone (GOWORK=off);
#   2. client-go's own black-box tests of tools/cache of that release run
#      against fanout linked with that release (hack/clientgo-blackbox.sh;
#      the parity module, whose test package runs them, is set to the pair),
#      both against the standalone informer package and against the
#      type-identical contrib/clientgo/cache;
#   3. sample-controller of that release (the newest the proxy serves of
#      its minor), switched by cmd/fanout-migrate with no hand edits: it
#      must report nothing, build, vet and pass its own tests with fanout's
#      informers (cmd/fanout-migrate TestSampleController);
#   4. a consumer check: a fresh module pinned to the pair adds fanout,
#      contrib/clientgo and contrib/sharding (replaced by the scratch
#      tree), and `go mod tidy` must leave its go line, k8s.io/* and
#      controller-runtime lines as they were;
#   5. Kubernetes' own controllers of that minor (k8s.io/kubernetes from the
#      proxy, COMPAT_K8S_PACKAGES of pkg/controller) switched by
#      fanout-migrate with no hand edits: their tests must pass as they do
#      on client-go (hack/k8s-controllers.sh);
#   6. the parity module (differential tests against client-go) set to the
#      pair, with the build tag of an older minor (clientgo035,
#      clientgo036: the files that need a newer client-go are left out),
#      and tested (go test builds and vets it); make test runs it in the
#      workspace, on the newest release, with -race.
#
# The steps run in the order 4, 3, 1, 2, 5, 6, each for every pair before the
# next. A failing step does not stop the run: every step of every pair runs,
# each prints its wall time and CPU time (user+system, which the load of
# other processes does not inflate), and the summary at the end lists the
# failures (exit status 1 if any). With COMPAT_DEADLINE (seconds since the
# epoch; .ci/run sets it), no step starts after that time, and a step still
# running COMPAT_OVERRUN seconds later (default 480) is stopped: the steps
# left or stopped are listed as not run, and do not fail the run.
#
#   hack/compat.sh                          # the three pairs below
#   COMPAT_PAIRS="v0.36.6:v0.24.1:v0.36.3:v1.36.3" hack/compat.sh
#                                           # client-go:controller-runtime[:sample-controller[:kubernetes]]
#   COMPAT_SKIP="tests blackbox" hack/compat.sh
#                                           # skip steps (modules, tests, blackbox, samplecontroller, consumer, controllers, parity)
#   COMPAT_TEST_FLAGS=-short hack/compat.sh # flags for the modules' go test
#   COMPAT_K8S_PACKAGES="deployment job" hack/compat.sh
#                                           # pkg/controller packages (default: hack/k8s-controllers.sh's)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pairs="${COMPAT_PAIRS:-v0.35.4:v0.23.3:v0.35.4:v1.35.4 v0.36.3:v0.24.1:v0.36.3:v1.36.3 v0.37.2:v0.25.3:v0.37.1:v1.37.2}"
read -r -a testflags <<<"${COMPAT_TEST_FLAGS:-}"
skip=" ${COMPAT_SKIP:-} "
export GOWORK=off GOFLAGS=-mod=mod
scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT

step() { echo "== [$(date -u +%H:%M:%S)] $*"; }

failed=()
notrun=()
compatstart=$(date +%s)
# run NAME CMD...: runs one step, prints its wall and CPU time, records a
# failure.
run() {
  local name="$1" tf rc wall user sys
  shift
  if [ -n "${COMPAT_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$COMPAT_DEADLINE" ]; then
    notrun+=("$name")
    return 0
  fi
  step "$name"
  local limit=()
  if [ -n "${COMPAT_DEADLINE:-}" ]; then
    limit=(timeout -k 10 $((COMPAT_DEADLINE + ${COMPAT_OVERRUN:-480} - $(date +%s))))
  fi
  tf="$(mktemp)"
  { TIMEFORMAT='%R %U %S'; time "${limit[@]}" "$@" 2>&4; } 4>&2 2>"$tf"
  rc=$?
  read -r wall user sys < "$tf" && rm -f "$tf"
  echo "-- $name: ${wall%.*}s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", u + s }')s CPU, exit $rc, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "${#limit[@]}" -gt 0 ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
    notrun+=("$name (stopped: COMPAT_DEADLINE + COMPAT_OVERRUN passed)")
  elif [ "$rc" -ne 0 ]; then
    failed+=("$name")
  fi
  return 0
}

# minor prints 35 for v0.35.10.
minor() { local v="${1#v0.}"; echo "${v%%.*}"; }

# setversions M CG [CR]: sets the pair's versions in module M
# (controller-runtime too when given and required) and tidies.
setversions() {
  local m="$1" cg="$2" cr="${3:-}" want=() p
  cd "$m" || return 1
  for p in k8s.io/api k8s.io/apimachinery k8s.io/client-go; do
    if grep -q "^[[:space:]]*$p v" go.mod; then want+=("$p@$cg"); fi
  done
  if [ -n "$cr" ] && grep -q "^[[:space:]]*sigs.k8s.io/controller-runtime v" go.mod; then
    want+=("sigs.k8s.io/controller-runtime@$cr")
  fi
  go get "${want[@]}" >/dev/null && go mod tidy
}

# prepare M CG: sets the pair's versions in module M, tidies, builds, vets.
prepare() {
  setversions "$1" "$2" && go build ./... && go vet ./...
}

# releasetag CG prints the parity module's build tag for client-go CG:
# clientgo035 or clientgo036 for those minors, nothing for the newest.
releasetag() {
  case "$(minor "$1")" in
  35 | 36) echo "clientgo0$(minor "$1")" ;;
  esac
}

# consumer TREE CG CR DIR: the consumer check.
consumer() {
  local tree="$1" cg="$2" cr="$3" c="$4"
  mkdir -p "$c" && cd "$c" || return 1
  go mod init example.com/consumer >/dev/null 2>&1
  local cgmod
  cgmod="$(go env GOMODCACHE)/cache/download/k8s.io/client-go/@v/$cg.mod"
  go mod download -json "k8s.io/client-go@$cg" >/dev/null || return 1
  go mod edit -go="$(awk '$1 == "go" {print $2; exit}' "$cgmod")"
  cat > main.go <<'GO'
package main

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	_ = informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	_ = ctrl.Options{}
}
GO
  go get "k8s.io/client-go@$cg" "k8s.io/api@$cg" "k8s.io/apimachinery@$cg" "sigs.k8s.io/controller-runtime@$cr" >/dev/null || return 1
  go mod tidy || return 1
  pinned() { grep -E '^go |k8s\.io/|sigs\.k8s\.io/controller-runtime ' go.mod | sed 's, // indirect,,' | sort; }
  pinned > before.txt
  go mod edit -require=github.com/kfanout/fanout@v0.0.0 -replace="github.com/kfanout/fanout=$tree" \
    -require=github.com/kfanout/fanout/contrib/clientgo@v0.0.0 -replace="github.com/kfanout/fanout/contrib/clientgo=$tree/contrib/clientgo" \
    -require=github.com/kfanout/fanout/contrib/sharding@v0.0.0 -replace="github.com/kfanout/fanout/contrib/sharding=$tree/contrib/sharding"
  cat > fanout.go <<'GO'
package main

import (
	"k8s.io/client-go/kubernetes/fake"

	fanoutinformers "github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/contrib/sharding"
	"github.com/kfanout/fanout/informer"
)

var (
	_ = fanoutinformers.NewSharedInformerFactory(fake.NewClientset(), 0)
	_ informer.SharedIndexInformerOptions
	_ sharding.Options
)
GO
  go mod tidy && go build ./... && go vet ./... || return 1
  pinned > after.txt
  if ! diff -u before.txt after.txt; then
    echo "compat: adding fanout moved the consumer's versions (client-go $cg, controller-runtime $cr)" >&2
    return 1
  fi
  echo "consumer on client-go $cg, controller-runtime $cr: $(grep -c . before.txt) pinned lines unchanged"
}

# Step by step, each for every pair: the cheap steps of every pair run
# before the expensive ones, so that a deadline (COMPAT_DEADLINE) cuts the
# expensive ones first.
for pair in $pairs; do
  IFS=: read -r cg _ <<<"$pair"
  mkdir -p "$scratch/$cg"
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$scratch/$cg" 2>/dev/null || true)
done

for s in consumer samplecontroller modules blackbox controllers parity; do
  if [[ "$skip" == *" $s "* ]]; then continue; fi
  for pair in $pairs; do
    IFS=: read -r cg cr sc kube <<<"$pair"
    tree="$scratch/$cg"
    case "$s" in
    consumer)
      run "$cg: consumer check with controller-runtime $cr" bash -c "$(declare -f consumer); consumer '$tree' '$cg' '$cr' '$scratch/consumer-$cg'"
      ;;
    samplecontroller)
      [ -n "$sc" ] && run "$cg: sample-controller $sc switched by fanout-migrate" bash -c \
        "set -o pipefail; cd '$tree' && FANOUT_SAMPLE_CONTROLLER='$sc' go test -count=1 -timeout 40m -run '^TestSampleController\$' -v ./cmd/fanout-migrate/ | grep -E '^(=== RUN|\s*--- |ok|FAIL|PASS)|fanout-migrate on|client-go'"
      ;;
    modules)
      modules=(. contrib/clientgo contrib/prometheus contrib/sharding)
      for m in "${modules[@]}"; do
        run "$cg: $m: go get, tidy, build, vet" bash -c "$(declare -f setversions prepare); prepare '$tree/$m' '$cg'"
        if [[ "$skip" != *" tests "* ]]; then
          # The root module's fanout-migrate tests that compile client-go pin
          # v0.37.2 (make test runs them); sample-controller runs above.
          run "$cg: $m: go test ${testflags[*]}" bash -c "cd '$tree/$m' && go test ${testflags[*]} -count=1 -timeout 40m -skip '^(TestGoldenOutputsCompile|TestSampleController)\$' ./..."
        fi
      done
      ;;
    blackbox)
      run "$cg: client-go $cg's black-box tests of tools/cache against fanout" bash -c \
        "set -o pipefail; $(declare -f setversions); setversions '$tree/parity' '$cg' '$cr' && cd '$tree' && FANOUT_CLIENTGO_BLACKBOX_LINK=1 FANOUT_CLIENTGO_BLACKBOX_PKGS=informer,typeid ./hack/clientgo-blackbox.sh '$cg' | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|tools/cache:'"
      ;;
    parity)
      tag="$(releasetag "$cg")"
      # go test builds and vets what it tests; the module's own build and
      # vet at its floor are make modcheck's.
      run "$cg: parity (tags '$tag'): go get, tidy, go test ${testflags[*]}" env GOFLAGS="-mod=mod -tags=$tag" \
        bash -c "$(declare -f setversions); setversions '$tree/parity' '$cg' '$cr' && go test ${testflags[*]} -count=1 -timeout 40m -skip '^TestSampleController\$' ./..."
      ;;
    controllers)
      [ -n "$kube" ] && run "$cg: Kubernetes $kube controllers switched by fanout-migrate" env K8S_VERSION="$kube" \
        K8S_PACKAGES="${COMPAT_K8S_PACKAGES:-}" "$root/hack/k8s-controllers.sh"
      ;;
    esac
  done
done
step "compat: $(( $(date +%s) - compatstart ))s"
if [ "${#notrun[@]}" -gt 0 ]; then
  step "compat: NOT RUN, the deadline (COMPAT_DEADLINE) had passed:"
  printf '   %s\n' "${notrun[@]}"
fi
if [ "${#failed[@]}" -gt 0 ]; then
  step "compat: FAILED steps:"
  printf '   %s\n' "${failed[@]}"
  exit 1
fi
if [ "${#notrun[@]}" -gt 0 ]; then
  step "compat: every step that ran passed, ${#notrun[@]} not run ($pairs)"
else
  step "compat: every pair passed ($pairs)"
fi
