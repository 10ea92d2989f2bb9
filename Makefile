# mqprobe — see README.md. Every target provisions what it needs.
SHELL := /bin/bash
GO ?= go
TOOLS := $(CURDIR)/.build/tools
STATICCHECK_VERSION := v0.8.2

.PHONY: build build-bin run dev-aws test test-ibmmq-real lint bench mqstub tools clean

build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./...

build-bin:
	$(GO) build -o bin/mqprobe ./cmd/mqprobe

## run: the daemon on its embedded default (HTTP on 127.0.0.1:8080, SQLite in ./data)
run: build-bin
	./bin/mqprobe run

## dev-aws: the daemon in aws mode on local goaws (127.0.0.1:4100) and dynalite (127.0.0.1:4567)
dev-aws:
	bash scripts/dev-aws.sh

## test: provision PostgreSQL and the MQ client stub, run every test (also with -tags ibmmq)
test:
	bash scripts/with-services.sh bash scripts/run-tests.sh

## test-ibmmq-real: the MQ backend suite against a real queue manager (MQPROBE_TEST_IBMMQ_*; IBM's client in /opt/mqm)
test-ibmmq-real:
	@if [ -z "$$MQPROBE_TEST_IBMMQ_QMGR" ]; then \
	  echo "set MQPROBE_TEST_IBMMQ_QMGR (and _CHANNEL, _CONNNAME, _USER, _PASSWORD, _QUEUE, _QUEUE2): see README"; exit 2; fi
	$(GO) test -count=1 -v -tags ibmmq ./internal/mq/ibmmq/

## lint: gofmt, go vet and staticcheck, with and without -tags ibmmq
lint: tools mqstub
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	eval "$$(bash scripts/build-mqstub.sh --env)" && \
	  $(GO) vet -tags ibmmq ./... && $(TOOLS)/staticcheck -tags ibmmq ./...

## bench: every benchmark, with the services they need
bench:
	bash scripts/with-services.sh bash -c '$(GO) test -run "^$$" -bench . -benchmem ./... && \
	  $(GO) test -run "^$$" -bench . -benchmem -tags ibmmq ./internal/mq/...'

## mqstub: build the IBM MQ client stub into .build/mqstub
mqstub:
	bash scripts/build-mqstub.sh

tools: $(TOOLS)/staticcheck

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

clean:
	rm -rf .build
