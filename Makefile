# mqprobe — see README.md and docs/development.md. Every target provisions
# what it needs; `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
TOOLS := $(CURDIR)/.build/tools
STATICCHECK_VERSION := v0.8.2
CYCLONEDX_GOMOD_VERSION := v1.10.0

.PHONY: help build build-bin run dev-aws test test-images test-ibmmq-real lint bench mqstub tools clean docker docs release

## build: compile every package, also with CGO_ENABLED=0 (no MQ client needed)
build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./...

# Expanded only where used (build-bin, docker): other targets run no git or
# date. A tree with uncommitted changes builds as <commit>-dirty.
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell [ -n "$$(git status --porcelain 2>/dev/null)" ] && echo -dirty)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS = -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)
# The release's name, as `mqprobe version` reports it and images are tagged.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

## build-bin: the binary bin/mqprobe (with its commit and build date)
build-bin:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/mqprobe ./cmd/mqprobe

## run: the daemon on its embedded default (HTTP on 127.0.0.1:8080, SQLite in ./data)
run: build-bin
	./bin/mqprobe run

## dev-aws: the daemon in aws mode on local goaws (127.0.0.1:4100) and dynalite (127.0.0.1:4567); checks the ports first
dev-aws:
	bash scripts/dev-aws.sh

## test: provision PostgreSQL, goaws, dynalite, moto, Jaeger, the AWS CLI, Chromium and the MQ client stub; run every test (also with -tags ibmmq), the docs' walkthroughs and the console's browser tests included
test:
	bash scripts/with-services.sh bash scripts/run-tests.sh


## test-images: build the embedded and ibmmq images with podman (base images made from Debian's
## packages) and run them as users would: non-root, read-only, healthcheck, PRODUCE; aws mode on moto; ibmmq on mqserver (TLS too)
test-images:
	bash scripts/test-images.sh

## release: static embedded binaries (CGO_ENABLED=0) dist/mqprobe-<os>-<arch> for linux amd64/arm64 and darwin arm64,
## dist/SHA256SUMS and the CycloneDX SBOM dist/mqprobe.cdx.json; VERSION=v1.2.3 names the release (default: git describe)
RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/arm64
release: $(TOOLS)/cyclonedx-gomod
	rm -rf dist && mkdir -p dist
	for platform in $(RELEASE_PLATFORMS); do \
	  os=$${platform%/*} arch=$${platform#*/}; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
	    -ldflags "-s -w -X main.version=$(VERSION) $(LDFLAGS)" -o dist/mqprobe-$$os-$$arch ./cmd/mqprobe || exit 1; \
	done
	cd dist && sha256sum mqprobe-* > SHA256SUMS
	# From what the shipped binary records (its modules are the same on every platform):
	# no version lookup in git, which a git worktree or an unpacked source tarball lacks.
	$(TOOLS)/cyclonedx-gomod bin -json -version $(VERSION) -output dist/mqprobe.cdx.json dist/mqprobe-linux-amd64
	@cat dist/SHA256SUMS

## test-ibmmq-real: the MQ backend suite and the daemon's ibmmq test against a queue manager outside the test process: the one MQPROBE_TEST_IBMMQ_* name (e.g. IBM's developer container), else the project's mqserver
test-ibmmq-real:
	bash scripts/test-ibmmq-real.sh

## lint: gofmt, go vet and staticcheck (with and without -tags ibmmq), go mod tidy, shellcheck
lint: tools mqstub
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	eval "$$(bash scripts/build-mqstub.sh --env)" && \
	  $(GO) vet -tags ibmmq ./... && $(TOOLS)/staticcheck -tags ibmmq ./...
	@$(GO) mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }
	bash scripts/shellcheck.sh

## bench: the benchmark report (bench/report.md, bench/report.json), with the services it needs and valgrind
bench:
	bash scripts/valgrind.sh
	bash scripts/with-services.sh $(GO) run ./bench -go $(GO) -out bench

## mqstub: build the IBM MQ client stub into .build/mqstub
mqstub:
	bash scripts/build-mqstub.sh

## tools: install the pinned staticcheck and cyclonedx-gomod (SBOMs) into .build/tools
tools: $(TOOLS)/staticcheck $(TOOLS)/cyclonedx-gomod

$(TOOLS)/cyclonedx-gomod:
	GOBIN=$(TOOLS) $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_GOMOD_VERSION)

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## clean: remove .build (tools, MQ stub, test binaries), bin/, dist/ and data/ (the embedded default's records)
clean:
	rm -rf .build bin dist data

## docker: build the images mqprobe:<tag> (IBM MQ client, -tags ibmmq) and mqprobe:<tag>-embedded;
## needs a container engine (DOCKER=podman works) and MQ_CLIENT_SHA256, the SHA-256 of IBM's MQ client tarball for MQ_VERSION
## (or of MQ_CLIENT_URL's); DOCKER_BUILD_FLAGS are passed to each build
DOCKER ?= docker
IMAGE ?= mqprobe
IMAGE_TAG ?= $(VERSION)
MQ_VERSION ?= 9.4.5.0
# podman writes OCI images unless told otherwise, and OCI has no HEALTHCHECK.
PODMAN_FORMAT = $(if $(findstring podman,$(DOCKER)),--format docker)
docker:
	@if ! $(DOCKER) info >/dev/null 2>&1; then \
	  echo "make docker: no container engine available ('$(DOCKER) info' failed): start one, or set DOCKER=podman"; exit 1; fi
	@if [ -z "$(MQ_CLIENT_SHA256)" ]; then \
	  echo "make docker: set MQ_CLIENT_SHA256 to the SHA-256 of IBM's MQ $(MQ_VERSION) client tarball (see the Dockerfile)"; exit 2; fi
	$(DOCKER) build $(PODMAN_FORMAT) $(DOCKER_BUILD_FLAGS) --target embedded --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg BUILD_DATE=$(BUILD_DATE) -t $(IMAGE):$(IMAGE_TAG)-embedded .
	$(DOCKER) build $(PODMAN_FORMAT) $(DOCKER_BUILD_FLAGS) --target ibmmq --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg BUILD_DATE=$(BUILD_DATE) --build-arg MQ_VERSION=$(MQ_VERSION) \
	  --build-arg MQ_CLIENT_SHA256=$(MQ_CLIENT_SHA256) $(if $(MQ_CLIENT_URL),--build-arg MQ_CLIENT_URL=$(MQ_CLIENT_URL)) -t $(IMAGE):$(IMAGE_TAG) .

## docs: regenerate configs/openapi.yaml, configs/asyncapi.yaml, docs/configuration.md and the
## console's screenshots in docs/console (taken by its browser test, in Chromium: scripts/chromium.sh)
docs:
	$(GO) run ./tools/gendocs
	MQPROBE_TEST_CHROMIUM="$$(bash scripts/chromium.sh)" MQPROBE_CONSOLE_SCREENSHOTS=$(CURDIR)/docs/console \
	  $(GO) test -count=1 -run '^TestConsoleInBrowser$$' ./internal/console/

## help: list the targets and what they do
help:
	@awk '/^## [a-z-]+:/ { sub(/^## /, ""); split($$0, part, ": "); printf "  %-16s %s\n", part[1], substr($$0, length(part[1]) + 3); next } \
	  /^## / { sub(/^## /, ""); printf "  %-16s %s\n", "", $$0 }' $(MAKEFILE_LIST)
