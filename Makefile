# diag: see README.md. `make demo` and `make test` are the two set-up commands.
GO      ?= go
BIN     ?= bin/diag
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# make dist: static binaries for the platforms diag runs on.
DIST_PLATFORMS := windows/amd64 linux/amd64 linux/arm64 darwin/arm64
# make image: the multi-OS image diag collect --cluster runs (deploy/Dockerfile).
IMAGE ?= ghcr.io/wincni/diag:$(VERSION)
IMAGE_PLATFORMS := linux/amd64,linux/arm64,windows/amd64
# The race detector needs cgo; use it where the toolchain has it.
RACE    := $(if $(filter 1,$(shell $(GO) env CGO_ENABLED)),-race,)
FUZZTIME ?= 10s

.PHONY: build install test test-windows test-cluster test-monitor demo bench fuzz cross vet lint clean dist compare-tshark perf perf-etl image

# Stripped (-s -w in LDFLAGS) and without the build machine's paths, as
# released (docs/performance.md gives the sizes).
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/diag

# diag on your PATH: into $(go env GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/diag
	@echo "installed: $$($(GO) env GOBIN || true)$$( [ -n "$$($(GO) env GOBIN)" ] || echo $$($(GO) env GOPATH)/bin)/diag"

# Analyze the bundled seed case: a Calico VXLAN node whose overlay network sits
# on the Vagrant NAT adapter. Exit status 3 (findings) is the expected outcome.
demo: build
	@./$(BIN) analyze testdata/bundles/seed-broken; rc=$$?; [ $$rc -eq 3 ] || { echo "demo: unexpected exit status $$rc" >&2; exit 1; }

vet:
	$(GO) vet ./...

# Tests write files for people to look at (the HTML report's screenshot)
# under test-output/. The browser test runs where chromium is installed.
test: vet cross lint
	@mkdir -p test-output
	$(GO) test $(RACE) -artifacts -outputdir=$(CURDIR)/test-output ./...

# The Windows build's tests, run under Debian's wine64 (apt-get install
# wine64): tools/wine/setup.sh makes a Wine prefix in ~/.cache/diag-wine
# (with the bcryptprimitives.dll Go needs and Wine 8.0 lacks), then
# tools/wine/test.sh builds GOOS=windows test binaries of the packages with
# Windows code and cmd/diag and runs each under Wine: ok/FAIL per package.
# PKGS="bundle capture" for some only; TESTFLAGS=-test.v for more.
test-windows:
	@GO=$(GO) tools/wine/test.sh

# diag collect --cluster against a real control plane on loopback:
# kube-apiserver (RBAC, Pod Security admission, audit log), etcd and kwok,
# built from the Go module proxy by tools/testcluster/build.sh into a cache
# (about 10-15 minutes the first time on two cores, then none). The tests
# start the control plane and stop it. DIAG_TESTCLUSTER_LOAD=200 measures a
# larger cluster.
test-cluster:
	@env=$$(tools/testcluster/build.sh) && DIAG_TESTCLUSTER_ENV=$$env $(GO) test -count=1 -timeout 25m ./cluster/e2e/

# diag monitor scraped by a real Prometheus (Debian's prometheus package,
# apt-get install prometheus): the monitor's fake HNS loses a route and gets
# it back, and a PromQL query over Prometheus' HTTP API sees the finding
# appear and clear; promtool check metrics and check rules judge /metrics
# and deploy/prometheus-rules.yaml. deploy/monitor.yaml's RBAC, the watches
# and the Events against make test-cluster's real kube-apiserver (built and
# cached by tools/testcluster/build.sh). Then the budget on the 1,000-node
# fixture (CPU and RSS of a round) and a simulated day of rounds without
# growth (about 5 minutes). The unit tests of the monitor are in make test.
PROMETHEUS ?= $(shell command -v prometheus 2>/dev/null || echo /usr/bin/prometheus)
test-monitor:
	@[ -x "$(PROMETHEUS)" ] || { echo "test-monitor: no Prometheus at $(PROMETHEUS) (apt-get install prometheus)"; exit 1; }
	@env=$$(tools/testcluster/build.sh) && DIAG_TESTCLUSTER_ENV=$$env DIAG_TEST_PROMETHEUS=$(PROMETHEUS) DIAG_TEST_BUDGET=1 \
	  $(GO) test -count=1 -timeout 30m -run '^(TestPrometheus|TestRealAPIServer|TestBudget)' -v ./monitor/

# Windows is where collect runs; analyze, capture decode and diff run
# anywhere, so a Mac build is held too (it caught a Linux-only syscall).
cross:
	GOOS=windows $(GO) build ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

# staticcheck, pinned by the tool directive in go.mod (go get -tool ...@version
# to move it): built from the module cache, so a fresh machine needs only Go.
# It is built once for this machine and run for both platforms diag builds for.
STATICCHECK := bin/staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); [ -z "$$out" ] || { echo "gofmt: not formatted:"; echo "$$out"; exit 1; }
	$(GO) build -o $(STATICCHECK) honnef.co/go/tools/cmd/staticcheck
	./$(STATICCHECK) ./...
	GOOS=windows ./$(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Whole-process figures on data the repository generates (bench/perf.sh):
# analyze of a 1,000-node cluster's bundle against only decoding its JSON,
# and a Format-List paste of its endpoints against the same as JSON; each
# ratio printed with its goal (docs/performance.md quotes them). Where the
# project's shared checks sit beside it (../shared/checks), those run too.
# Not part of make test. Go benchmarks of the same paths: make bench.
PERF_CHECKS := analyze-perf analyze-scale paste-perf capture-perf
perf:
	@rc=0; bench/perf.sh || rc=1; \
	if [ -d ../shared/checks ]; then for c in $(PERF_CHECKS); do \
	  [ -x ../shared/checks/$$c ] || continue; echo "== ../shared/checks/$$c"; ../shared/checks/$$c || rc=1; done; fi; exit $$rc

# pktmon ETL against pcap and pcapng: the same 500,000 packets analyzed from each, and
# read alone (ns/packet; docs/etl.md quotes the ratios). Not part of make test.
perf-etl:
	$(GO) test -run '^$$' -bench 'Benchmark(RawRead|ReadETL|Analyze|AnalyzePcapng|AnalyzeETL)$$' -benchtime 5x -count 3 ./capture/

# Every fuzz target, briefly. FUZZTIME=5m make fuzz for a longer run.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# diag.exe for Windows nodes, diag for Linux nodes and Mac laptops; static
# (no cgo), stamped with the version and commit (diag version prints them).
# Each is archived as a release has it (zip for Windows, tar.gz elsewhere)
# with SHA256SUMS; with DIST_URL (where the archives will be downloaded
# from) a krew plugin manifest for kubectl diag is written too.
DIST_URL ?=
dist:
	@set -e; rm -rf dist; mkdir -p dist; for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  out=dist/$$os-$$arch/diag$$ext; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$out ./cmd/diag; \
	  cp LICENSE* README.md dist/$$os-$$arch/ 2>/dev/null || true; \
	  name=diag-$(VERSION)-$$os-$$arch; \
	  if [ $$os = windows ]; then (cd dist/$$os-$$arch && zip -qr ../$$name.zip .); \
	  else tar -C dist/$$os-$$arch -czf dist/$$name.tar.gz .; fi; \
	done; \
	(cd dist && sha256sum diag-$(VERSION)-*.zip diag-$(VERSION)-*.tar.gz > SHA256SUMS); \
	cat dist/SHA256SUMS; \
	if [ -n "$(DIST_URL)" ]; then tools/dist/krew-manifest.sh $(VERSION) "$(DIST_URL)" dist/SHA256SUMS > dist/krew-diag.yaml; echo dist/krew-diag.yaml; \
	else echo "(DIST_URL=<where the archives are published> also writes dist/krew-diag.yaml, the krew manifest)"; fi

# The image of this version for Linux and Windows nodes, pushed to $(IMAGE).
# Needs docker buildx with a builder that can push (none here: not in CI).
image: dist
	@command -v docker >/dev/null || { echo "image: docker (with buildx) is needed to build and push $(IMAGE)"; exit 1; }
	docker buildx build --platform $(IMAGE_PLATFORMS) -f deploy/Dockerfile -t $(IMAGE) --push .

# diag's capture decoder against tshark (docs/capture-vs-tshark.md): the
# corner-case corpus capture/tshark_corpus_test.go writes, and the public
# captures in ../shared/captures when they are there. Not part of make test:
# it needs tshark (without it the tool says so and passes).
CORPUS_DIR ?= $(CURDIR)/test-output/tshark-corpus
compare-tshark: build
	@rm -rf $(CORPUS_DIR) && mkdir -p $(CORPUS_DIR)
	$(GO) test ./capture -run '^TestTsharkCorpus$$' -count=1 -corner-captures $(CORPUS_DIR)
	$(GO) run ./tools/compare-tshark -diag $(BIN) -vxlan-port 8472 $(CORPUS_DIR) $(wildcard ../shared/captures)

clean:
	rm -rf bin test-output dist
