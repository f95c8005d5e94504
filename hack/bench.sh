#!/usr/bin/env bash
# Runs the side-by-side benchmarks (fanout and client-go in the same run)
# and prints benchstat tables. Usage: hack/bench.sh [count]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-6}
out=$(mktemp -d)
go test -run='^$' -bench=. -benchmem -count="$count" ./ringbuffer/ | tee "$out/ring.txt"
if ls contrib/clientgo/*_test.go >/dev/null 2>&1; then
  (cd contrib/clientgo && go test -run='^$' -bench=. -benchmem -count="$count" ./...) | tee "$out/clientgo.txt"
fi
cd contrib/clientgo
for f in "$out"/*.txt; do
  echo "== benchstat $(basename "$f")"
  go run golang.org/x/perf/cmd/benchstat -col /impl "$f" || true
done
