# fanout: make targets. Every target works from a fresh clone; the only
# network it needs is the Go module proxy.
GO ?= go
MODULES := . ./contrib/clientgo ./contrib/prometheus ./contrib/sharding ./parity
# Modules of our own that pin their own dependencies (the demo's client-go
# v0.37.2 and gonum/plot; the lint tool): out of go.work, so that they do
# not raise the versions the library's modules are tested with; always
# built with GOWORK=off.
EXAMPLES := ./examples
TOOLS := ./hack/tools
# The pinned golangci-lint binary's path (built on first use).
GOLANGCI_LINT_PATH := GOWORK=off $(GO) tool -modfile=$(CURDIR)/hack/tools/go.mod -n golangci-lint
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
	@$(GO) test -count=1 -timeout 5m -run 'Memory' ./internal/listener/ ./informer/
	@echo "== go test -race $(EXAMPLES)"
	@cd $(EXAMPLES) && GOWORK=off $(GO) test -race -count=1 -timeout 12m ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME) DIFF_SEEDS=0

## demo: the main job, on an embedded simulated API source: client-go's
## informer, fanout's with its defaults and fanout's with coalescing.
demo:
	cd $(EXAMPLES) && GOWORK=off $(GO) run ./overload

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
		(cd parity/clientgo && FANOUT_DIFF_SEEDS=$(DIFF_SEEDS) FANOUT_DIFF_COUNT_FILE=$$count $(GO) test -count=1 -timeout 120m -run '^TestInformerDifferential$$' .) || { rm -f $$count; exit 1; }; \
		cat $$count; rm -f $$count; \
	fi

## lint: golangci-lint (pinned in hack/tools, config .golangci.yml) on
## every module, each alone, except parity: it is linted in the workspace,
## on the newest release, where all its files build (its go.mod's floor
## leaves out the files that need a newer client-go; modcheck builds it).
lint:
	@set -e; lint=$$($(GOLANGCI_LINT_PATH)); \
	for m in $(MODULES) $(EXAMPLES) ./e2e $(TOOLS); do \
		work=off; if [ $$m = ./parity ]; then work=$(CURDIR)/go.work; fi; \
		echo "== golangci-lint $$m (GOWORK=$$work)"; \
		(cd $$m && GOWORK=$$work $$lint run --config $(CURDIR)/.golangci.yml ./...); \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')

## modcheck: every module builds, vets and is tidy on its own, as a user's
## build sees it (GOWORK=off: no go.work, only its go.mod and go.sum).
## parity's go.mod requires client-go v0.35.0, so it is built with that
## minor's tag (clientgo035), which leaves out the files needing v0.36+.
modcheck:
	@set -e; for m in $(MODULES) $(EXAMPLES) ./e2e; do \
		tags=; if [ $$m = ./parity ]; then tags=-tags=clientgo035; fi; \
		echo "== GOWORK=off build, vet, tidy -diff: $$m $$tags"; \
		(cd $$m && GOWORK=off $(GO) build $$tags ./... && GOWORK=off $(GO) vet $$tags ./... && GOWORK=off $(GO) mod tidy -diff); \
	done

.PHONY: compat compat-ci

## compat: every supported client-go/controller-runtime pair (v0.35.10 +
## v0.23.3, v0.36.6 + v0.24.1, v0.37.2 + v0.25.3), each in a scratch copy
## where go get sets the versions: the user modules built, vetted and
## tested alone, client-go's black-box tests of that release,
## sample-controller of that release switched by fanout-migrate, the
## consumer check, and Kubernetes' own controllers of that minor (v1.35.4,
## v1.36.3, v1.37.2) switched by fanout-migrate with their tests compared
## with client-go's (hack/compat.sh; COMPAT_PAIRS, COMPAT_SKIP,
## COMPAT_TEST_FLAGS, COMPAT_K8S_PACKAGES). Every step runs and prints its
## wall and CPU time; failures are listed at the end.
compat:
	./hack/compat.sh

## compat-ci: make compat as .ci/run runs it: every pair and every step,
## with COMPAT_CI_K8S_PACKAGES of Kubernetes' controllers instead of the
## ten of make k8s-controllers (docs/compatibility.md has the timings).
COMPAT_CI_K8S_PACKAGES ?= deployment replicaset cronjob serviceaccount podautoscaler
compat-ci:
	COMPAT_K8S_PACKAGES="$(COMPAT_CI_K8S_PACKAGES)" ./hack/compat.sh

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

.PHONY: realcode

## realcode: real controller code switched with no hand edits. Takes
## k8s.io/sample-controller from the module proxy, runs fanout-migrate on it
## (default mode: the type-identical package and fanout's factories),
## requires an empty report, then builds, vets and runs its unit tests
## against this repository; prints the time taken. Needs the module proxy.
realcode:
	@start=$$(date +%s); rc=0; \
	$(GO) test -count=1 -timeout 20m -run '^TestSampleController$$' -v ./cmd/fanout-migrate/ || rc=$$?; \
	echo "realcode: $$(( $$(date +%s) - start ))s"; exit $$rc

.PHONY: k8s-controllers

## k8s-controllers: Kubernetes' own controllers (k8s.io/kubernetes from the
## module proxy, K8S_VERSION, default v1.37.2, the release e2e builds the
## apiserver from) switched by fanout-migrate with no hand edits: requires an
## empty report, then builds, vets and tests K8S_PACKAGES of pkg/controller:
## every test that passes on client-go must pass on fanout, by name
## (hack/k8s-controllers.sh).
k8s-controllers:
	./hack/k8s-controllers.sh
