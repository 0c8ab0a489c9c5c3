# Thin wrappers; the README's two set-up commands are `make run` and `make test`.
SWIFT ?= swift
# Build the macros against the toolchain's own swift-syntax: offline, and no swift-syntax build
# (Package.swift). `make test OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX=0` uses the swift-syntax package.
export OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX ?= 1
SYSTEM_PACKAGES := libsqlite3-dev libjemalloc-dev

.PHONY: run test conform mutants bench bench-compare baseline fixtures reliability docs lint format deps clean

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

## The main job: conformance suites on both stores, 10,000 differential cases, the quick
## benchmarks; every report under Reports/.
run: deps
	$(SWIFT) run -c release harness

## Conformance suites and 10,000 differential cases only (about a minute), with reports.
conform: deps
	$(SWIFT) run -c release harness conform --junit Reports/conformance-junit.xml --markdown Reports/conformance.md

## The mutation score of the checks (a debug build: the mutants exist only there): every
## semantic mutant of the library (InjectedFault) in a child process of its own against the
## conformance suites, the schema-derived checks and 400 differential cases, stopping at the
## first failing check; Reports/mutants.md and .json; the last line is `mutants: K of N killed`;
## exits 1 under 95 %. `make conform` then states the score in its report. Four workers at once:
## they spend much of their time waiting on the disk store's syncs (about 4 minutes on 2 cores).
mutants: deps
	$(SWIFT) run harness conform --mutants --jobs 4 --markdown Reports/mutants.md --json Reports/mutants.json

## The test suite.
test: deps
	$(SWIFT) test

## The quick benchmark set (under 5 minutes): every workload at 1k/10k/100k rows on both stores
## against raw SQLite; reports under Reports/.
bench: deps
	$(SWIFT) run -c release harness bench --quick

## The quick set compared with the committed baseline: exits 1 when a ratio to raw SQLite or a
## malloc count regresses past its threshold, or a result misses its ratio target (wall time alone
## never fails). A result that fails is measured once more; the better measurement decides.
bench-compare: deps
	$(SWIFT) run -c release harness bench --quick --compare Reports/baseline.json --out /tmp/openswiftdata-bench

## Regenerates Reports/baseline.json from three quick runs, each result from the run with its
## median ratio to raw SQLite (a baseline of one run can hold a lucky low that later runs fail).
baseline: deps
	for i in 1 2 3; do $(SWIFT) run -c release harness bench --quick --out /tmp/openswiftdata-baseline-$$i || exit 1; done
	$(SWIFT) run -c release harness report baseline $$(for i in 1 2 3; do ls -t /tmp/openswiftdata-baseline-$$i/bench-*.json | head -1; done)

## The reliability probes, full configuration (SIGKILL loop, readers during writes, writers in
## several processes, concurrent creation, disk full, bad files, hostile values), each in child
## processes; Reports/reliability.md and Reports/reliability.json; exits 1 on a failure.
reliability: deps
	$(SWIFT) run -c release harness reliability

## Regenerates the committed sample fixtures (same seed → byte-identical files) and verifies them.
fixtures: deps
	$(SWIFT) run -c release harness fixtures --schema catalogue --seed 1 --scale 1000 --out Fixtures/catalogue.sqlite
	$(SWIFT) run -c release harness fixtures --schema dictionary --seed 1 --scale 2000 --out Fixtures/dictionary.sqlite
	$(SWIFT) run -c release harness fixtures --schema trips --seed 1 --scale 500 --out Fixtures/trips.sqlite
	$(SWIFT) run -c release harness fixtures --schema users --seed 1 --scale 1000 --traits unicode-heavy,hostile --out Fixtures/users.sqlite
	for f in Fixtures/*.sqlite; do $(SWIFT) run -c release harness fixtures verify $$f || exit 1; done

## The DocC documentation of OpenSwiftData, OpenSwiftDataTesting and BenchmarkKit as static HTML
## under .build/docs-html/ (offline, the toolchain's docc, warnings are errors): scripts/docs.sh.
docs:
	SWIFT=$(SWIFT) scripts/docs.sh

## The style check CI runs: `swift format lint --strict` with .swift-format (4 spaces, 120
## columns) over Sources, Tests and Benchmarks, and no function in Sources/OpenSwiftData over 80
## lines (scripts/function-lengths.py), and the layering rules (scripts/layering.sh: only the
## SQLite wrapper calls sqlite3_*, the context names no statement); exits 1 with one line per finding.
lint:
	$(SWIFT) format lint --recursive --strict --configuration .swift-format Sources Tests Benchmarks
	scripts/function-lengths.py Sources/OpenSwiftData
	scripts/layering.sh

## Formats Sources, Tests and Benchmarks in place with .swift-format. The README's and the
## articles' code blocks are copies of Tests/ReadmeTests/Examples/: if an example changes,
## paste it again (ReadmeBlocksTests names the block).
format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks

clean:
	$(SWIFT) package clean
