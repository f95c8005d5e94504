# fanout: make targets. Every target works from a fresh clone; the only
# network it needs is the Go module proxy.
GO ?= go
MODULES := . ./contrib/clientgo ./contrib/prometheus ./contrib/sharding
FUZZTIME ?= 10m
# How long the bounded fuzz runs inside `make test` last.
TEST_FUZZTIME ?= 10s
BENCHCOUNT ?= 6

.PHONY: all test test-short demo bench fuzz lint fmt vet tidy modcheck

all: lint modcheck test

## test: race-enabled tests of every module, the performance-shaped tests
## (memory bounds) without the race detector, and short bounded fuzz runs.
test:
	@set -e; for m in $(MODULES); do \
		echo "== go test -race $$m"; \
		(cd $$m && $(GO) test -race -count=1 -timeout 12m ./...); \
	done
	@echo "== go test (no race) memory-bound tests"
	@$(GO) test -count=1 -timeout 5m -run 'Memory' ./listener/ ./informer/
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME) DIFF_SEEDS=0

## demo: the main job, on an embedded simulated API source.
demo:
	$(GO) run ./examples/overload

## bench: side-by-side benchmarks against client-go, summarised by benchstat.
bench:
	./hack/bench.sh $(BENCHCOUNT)

## fuzz: every fuzz target for FUZZTIME each (default 10m), then the seeded
## informer differential test against client-go with DIFF_SEEDS seeds (the
## default replays over 10 million handler calls, each compared with
## client-go's; it prints the count).
DIFF_SEEDS ?= 9000
fuzz:
	@./hack/fuzz.sh $(FUZZTIME)
	@if [ "$(DIFF_SEEDS)" != "0" ]; then \
		echo "== informer differential test, $(DIFF_SEEDS) seeds"; \
		count=$$(mktemp); \
		(cd contrib/clientgo && FANOUT_DIFF_SEEDS=$(DIFF_SEEDS) FANOUT_DIFF_COUNT_FILE=$$count $(GO) test -count=1 -timeout 120m -run '^TestInformerDifferential$$' .) || { rm -f $$count; exit 1; }; \
		cat $$count; rm -f $$count; \
	fi

## lint: gofmt check and go vet on every module.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) vet ./...); done

fmt:
	gofmt -w $$(git ls-files '*.go')

## modcheck: every module builds, vets and is tidy on its own, as a user's
## build sees it (GOWORK=off: no go.work, only its go.mod and go.sum).
modcheck:
	@set -e; for m in $(MODULES) ./e2e; do \
		echo "== GOWORK=off build, vet, tidy -diff: $$m"; \
		(cd $$m && GOWORK=off $(GO) build ./... && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) mod tidy -diff); \
	done

.PHONY: e2e demo-cluster soak

## e2e: builds etcd and kube-apiserver from the Go module proxy (cached in
## .cache/e2e; 12-18 min cold, ~40 s with the Go build cache), starts them on
## 127.0.0.1, runs the ./e2e suite and stops them, also on failure.
## E2E_ARGS go to `go test` (for example E2E_ARGS='-run Restart').
e2e:
	./hack/e2e/run.sh $(E2E_ARGS)

## soak: the soak and chaos run against a real kube-apiserver and etcd
## (hack/e2e/soak.sh): a seeded random workload with faults, fanout's
## informers next to client-go's, invariants checked throughout; prints a
## summary and writes a JSON report and a PNG timeline under .cache/soak.
## SOAK_DURATION (default 10m), SOAK_SEED, SOAK_RATE (writes/s).
## `make e2e` runs a 2-minute soak as part of the suite.
SOAK_DURATION ?= 10m
soak:
	SOAK_DURATION=$(SOAK_DURATION) ./hack/e2e/soak.sh

## demo-cluster: the overload demo against a real kube-apiserver and etcd,
## built and started as for e2e (optional, not in CI; about 2 minutes with
## the binaries built). DEMO_ARGS go to e2e/cmd/democluster (for example
## DEMO_ARGS='-rate 1500 -duration 20s').
demo-cluster:
	./hack/e2e/demo-cluster.sh $(DEMO_ARGS)
