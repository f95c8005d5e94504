#!/usr/bin/env bash
# Runs every Go fuzz target in every module for the given time each.
# Usage: hack/fuzz.sh 10m
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10m}
for m in . ./contrib/clientgo ./contrib/prometheus; do
  ( cd "$m"
    for pkg in $(go list ./...); do
      dir=$(go list -f '{{.Dir}}' "$pkg")
      for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
        echo "== fuzz $pkg $f for $t"
        go test -run='^$' -fuzz="^${f}\$" -fuzztime="$t" "$pkg"
      done
    done )
done
