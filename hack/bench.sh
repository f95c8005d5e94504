#!/usr/bin/env bash
# Side-by-side benchmarks of fanout and client-go v0.37.2 (same process,
# same run), summarised by benchstat with one column per implementation
# (client-go first, the other columns show their ratio to it).
#
# Usage: hack/bench.sh [count]
#
#   count            passes of the cheap benchmarks (ring, queue Add+Pop);
#                    default 6. Each pass is a separate process and runs
#                    every implementation, so the implementations are
#                    interleaved in time and load spikes hit them alike.
#   BENCH_HEAVY_COUNT passes of the scenario benchmarks (fan-out, stalled
#                    handler, initial list, upstream; one iteration each);
#                    default 5.
#   BENCH_OUT        directory for raw results (default: a temp dir).
#   BENCH_CHEAP, BENCH_SCENARIOS, BENCH_REAL override the -bench regexps of
#                    the three sets.
#   FANOUT_BENCH_IMPLS comma-separated informer implementations to run
#                    (clientgo,fanout,fanout-classic,fanout-deltafifo,
#                    fanout-seed; default all).
#   BENCH_REAL_COUNT passes of the real-object scenarios (round two:
#                    BenchmarkReal*, a clientset against a realistic
#                    server; one iteration each); default 3, 0 skips them.
#                    FANOUT_REAL_* variables size them (see
#                    parity/clientgo/bench_realistic_*_test.go).
#   BENCH_QUICK=1    a quick run (under 3 minutes on a quiet machine): one
#                    pass of everything, clientgo and fanout only, real
#                    scenarios at 10k Pods and 2k churn events.
#
# Load averages are printed before every pass and kept in $BENCH_OUT/load.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-6}
heavy=${BENCH_HEAVY_COUNT:-5}
real=${BENCH_REAL_COUNT:-3}
if [ "${BENCH_QUICK:-}" = 1 ]; then
  count=1 heavy=1 real=1
  export FANOUT_BENCH_IMPLS=${FANOUT_BENCH_IMPLS:-clientgo,fanout}
  export FANOUT_REAL_PODS=${FANOUT_REAL_PODS:-10000} FANOUT_REAL_CHURN=${FANOUT_REAL_CHURN:-2000}
  export FANOUT_REAL_CM_PODS=${FANOUT_REAL_CM_PODS:-2000} FANOUT_REAL_CM_CHURN=${FANOUT_REAL_CM_CHURN:-2000} FANOUT_REAL_IDLE_MS=${FANOUT_REAL_IDLE_MS:-1000}
fi
out=${BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out"
: >"$out/cheap.txt"
: >"$out/heavy.txt"
: >"$out/load.txt"
: >"$out/real.txt"

echo "== building test binaries into $out"
go test -c -o "$out/ring.test" ./ringbuffer/
(cd parity/clientgo && go test -c -o "$out/clientgo.test" .)

load() { echo "$(date -u +%FT%TZ) $1: $(uptime | sed 's/.*load average/load average/')" | tee -a "$out/load.txt"; }

cheap=${BENCH_CHEAP:-'^Benchmark(Ring|DeltaFIFOAddPop|RealFIFOAddPop|RealFIFOAddPopBatch)$'}
scenarios=${BENCH_SCENARIOS:-'^Benchmark(FanOut|StalledHandler|InitialList|Upstream)$'}

for i in $(seq "$count"); do
  load "cheap pass $i/$count"
  "$out/ring.test" -test.run='^$' -test.bench="$cheap" -test.benchmem -test.count=1 | tee -a "$out/cheap.txt"
  (cd parity/clientgo && "$out/clientgo.test" -test.run='^$' -test.bench="$cheap" -test.benchmem -test.count=1) | tee -a "$out/cheap.txt"
done
for i in $(seq "$heavy"); do
  load "scenario pass $i/$heavy"
  (cd parity/clientgo && "$out/clientgo.test" -test.run='^$' -test.bench="$scenarios" -test.benchtime=1x -test.count=1 -test.timeout=30m) | tee -a "$out/heavy.txt"
done
realbench=${BENCH_REAL:-'^BenchmarkReal(InitialSync|Churn|Relist|ControllerManager)$'}
for i in $(seq "$real"); do
  load "real-object pass $i/$real"
  (cd parity/clientgo && "$out/clientgo.test" -test.run='^$' -test.bench="$realbench" -test.benchtime=1x -test.count=1 -test.timeout=60m) | tee -a "$out/real.txt"
done
load "done"

# client-go first: every other column is compared with it.
cols='/impl@(clientgo fanout fanout-classic fanout-deltafifo fanout-seed)'
cd parity/clientgo
for f in cheap heavy; do
  echo
  echo "== benchstat $f (raw: $out/$f.txt)"
  go tool benchstat -col "$cols" "$out/$f.txt" || true
done
if [ -s "$out/real.txt" ]; then
  echo
  echo "== benchstat real (raw: $out/real.txt)"
  go tool benchstat -col '/impl@(clientgo clientgo-nomf fanout fanout-listwatch fanout-deltafifo fanout-lean)' "$out/real.txt" || true
fi
