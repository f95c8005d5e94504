#!/usr/bin/env bash
# make compat: every supported client-go/controller-runtime pair, each in a
# scratch copy of this tree (mktemp -d) where `go get` sets the versions:
#   1. every user module (root, contrib/clientgo, contrib/prometheus, and
#      contrib/sharding from v0.36) is tidied, built, vetted and tested
#      against the pair, alone (GOWORK=off);
#   2. client-go's own black-box tests of tools/cache of that release run
#      against fanout linked with that release (hack/clientgo-blackbox.sh);
#   3. a consumer check: a fresh module pinned to the pair adds fanout and
#      contrib/clientgo (replaced by the scratch tree), and `go mod tidy`
#      must leave its go line, k8s.io/* and controller-runtime lines as
#      they were.
#
#   hack/compat.sh                          # the three pairs below
#   COMPAT_PAIRS="v0.36.6:v0.24.1" hack/compat.sh
#   COMPAT_SKIP=blackbox hack/compat.sh     # skip a step (tests, blackbox, consumer)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pairs="${COMPAT_PAIRS:-v0.35.10:v0.23.3 v0.36.6:v0.24.1 v0.37.2:v0.25.2}"
skip=" ${COMPAT_SKIP:-} "
export GOWORK=off GOFLAGS=-mod=mod
scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT

step() { echo "== [$(date -u +%H:%M:%S)] $*"; }

# minor prints 35 for v0.35.10.
minor() { local v="${1#v0.}"; echo "${v%%.*}"; }

for pair in $pairs; do
  cg="${pair%%:*}" cr="${pair##*:}"
  tree="$scratch/$cg"
  mkdir -p "$tree"
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree" 2>/dev/null || true)
  modules=(. contrib/clientgo contrib/prometheus)
  if [ "$(minor "$cg")" -ge 36 ]; then modules+=(contrib/sharding); fi

  for m in "${modules[@]}"; do
    step "$cg: $m: go get, tidy, build, vet"
    (
      cd "$tree/$m"
      want=()
      for p in k8s.io/api k8s.io/apimachinery k8s.io/client-go; do
        if grep -q "^[[:space:]]*$p v" go.mod; then want+=("$p@$cg"); fi
      done
      go get "${want[@]}" >/dev/null
      go mod tidy
      go build ./...
      go vet ./...
    )
    if [[ "$skip" != *" tests "* ]]; then
      step "$cg: $m: go test"
      (cd "$tree/$m" && go test -count=1 -timeout 20m ./...)
    fi
  done

  if [[ "$skip" != *" blackbox "* ]]; then
    step "$cg: client-go $cg's black-box tests of tools/cache against fanout"
    (cd "$tree" && FANOUT_CLIENTGO_BLACKBOX_LINK=1 ./hack/clientgo-blackbox.sh "$cg" | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|tools/cache:')
  fi

  if [[ "$skip" != *" consumer "* ]]; then
    step "$cg: consumer check with controller-runtime $cr"
    c="$scratch/consumer-$cg"
    mkdir -p "$c"
    (
      cd "$c"
      go mod init example.com/consumer >/dev/null 2>&1
      cgmod="$(go env GOMODCACHE)/cache/download/k8s.io/client-go/@v/$cg.mod"
      go mod download -json "k8s.io/client-go@$cg" >/dev/null
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
      go get "k8s.io/client-go@$cg" "k8s.io/api@$cg" "k8s.io/apimachinery@$cg" "sigs.k8s.io/controller-runtime@$cr" >/dev/null
      go mod tidy
      pinned() { grep -E '^go |k8s\.io/|sigs\.k8s\.io/controller-runtime ' go.mod | sed 's, // indirect,,' | sort; }
      pinned > before.txt
      go mod edit -require=github.com/kfanout/fanout@v0.0.0 -replace="github.com/kfanout/fanout=$tree" \
        -require=github.com/kfanout/fanout/contrib/clientgo@v0.0.0 -replace="github.com/kfanout/fanout/contrib/clientgo=$tree/contrib/clientgo"
      cat > fanout.go <<'GO'
package main

import (
	"k8s.io/client-go/kubernetes/fake"

	fanoutinformers "github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

var (
	_ = fanoutinformers.NewSharedInformerFactory(fake.NewClientset(), 0)
	_ informer.SharedIndexInformerOptions
)
GO
      go mod tidy
      go build ./...
      pinned > after.txt
      if ! diff -u before.txt after.txt; then
        echo "compat: adding fanout moved the consumer's versions (client-go $cg, controller-runtime $cr)" >&2
        exit 1
      fi
      echo "consumer on client-go $cg, controller-runtime $cr: $(grep -c . before.txt) pinned lines unchanged"
    )
  fi
done
step "compat: every pair passed ($pairs)"
