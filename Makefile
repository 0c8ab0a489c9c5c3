# Thin wrappers; the README's two set-up commands are `make run` and `make test`.
SWIFT ?= swift
SYSTEM_PACKAGES := libsqlite3-dev libjemalloc-dev

.PHONY: run test bench bench-compare fixtures deps clean

## Checks for SQLite and jemalloc (pkg-config); installs them with apt-get when missing and
## running as root, or prints the exact command to run.
deps:
	@if pkg-config --exists sqlite3 jemalloc 2>/dev/null; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "Installing $(SYSTEM_PACKAGES) ..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES) pkg-config; \
	else \
		echo "Missing system libraries. Run: sudo apt-get update && sudo apt-get install -y $(SYSTEM_PACKAGES) pkg-config"; \
		exit 1; \
	fi

## The main job (for now a demo: create an on-disk store, write, reopen, print).
run: deps
	$(SWIFT) run -c release demo

## The test suite.
test: deps
	$(SWIFT) test

## The quick benchmark set (under 5 minutes): every workload at 1k/10k/100k rows on both stores
## against raw SQLite; reports under Reports/.
bench: deps
	$(SWIFT) run -c release harness bench --quick

## The quick set compared with the committed baseline: exits 1 when a ratio to raw SQLite or a
## malloc count regresses past its threshold (wall time alone never fails).
bench-compare: deps
	$(SWIFT) run -c release harness bench --quick --compare Reports/baseline.json --out /tmp/openswiftdata-bench

fixtures: deps
	@echo "Fixture generation arrives with the seeded-data work."; exit 1

clean:
	$(SWIFT) package clean
