#!/usr/bin/env python3
"""Clean build times of one or more commits, measured the same way side by side.

    scripts/build-times.py [--runs N] [--builds NAME,...] [REV ...]

Each REV (default: HEAD) is cloned from this repository into a temporary directory. For every
build named in --builds, the commits take turns, N rounds (default 5): remove `.build`, run the
build, record wall-clock seconds and the CPU seconds of the build's processes. Taking turns
spreads a shared machine's slow moments over all commits instead of one. The table gives each
build's median wall time per commit (the range, and the median CPU, beside it) and, for two or
more commits, each commit's median against the first commit's.

Builds (all in the toolchain mode, as the Makefile builds):
  library          swift build --target OpenSwiftData                 (debug)
  library-release  swift build -c release --target OpenSwiftData
  tests            swift build --build-tests                          (debug)
  tests-release    swift build -c release --build-tests -Xswiftc -enable-testing

The compiler's per-user module cache (`$XDG_CACHE_HOME/openswiftdata/ModuleCache`) is kept, so a
clean build here is a second build on the machine, not a first; the first round of each build
fills it and is measured like the others. Nothing else should run meanwhile: on two cores one
other compile job changes a result by a third.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILDS = {
    "library": ["--target", "OpenSwiftData"],
    "library-release": ["-c", "release", "--target", "OpenSwiftData"],
    "tests": ["--build-tests"],
    # `@testable import` needs -enable-testing, which only debug builds have by default.
    "tests-release": ["-c", "release", "--build-tests", "-Xswiftc", "-enable-testing"],
}


def clone(repo, rev, into):
    subprocess.run(["git", "clone", "-q", repo, into], check=True)
    subprocess.run(["git", "-C", into, "checkout", "-q", rev], check=True)
    return subprocess.run(["git", "-C", into, "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def timed_build(directory, arguments, log):
    shutil.rmtree(os.path.join(directory, ".build"), ignore_errors=True)
    environment = dict(os.environ, OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(log, "w") as output:
        status = subprocess.run(["swift", "build", *arguments], cwd=directory, env=environment,
                                stdout=output, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if status != 0:
        with open(log) as output:
            tail = "".join(output.readlines()[-30:])
        sys.exit(f"{tail}\nbuild failed ({status}): swift build {' '.join(arguments)} in {directory}")
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="*", default=["HEAD"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--builds", default="library", help=", ".join(BUILDS))
    options = parser.parse_args()
    builds = [b.strip() for b in options.builds.split(",") if b.strip()]
    for b in builds:
        if b not in BUILDS:
            sys.exit(f"unknown build '{b}'; one of {', '.join(BUILDS)}")
    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                          text=True).stdout.strip()
    scratch = tempfile.mkdtemp(prefix="build-times-")
    try:
        commits = []
        for i, rev in enumerate(options.revs):
            directory = os.path.join(scratch, f"c{i}")
            commits.append((clone(repo, rev, directory), directory))
        results = {}
        for build in builds:
            for round_ in range(options.runs):
                for short, directory in commits:
                    log = os.path.join(scratch, f"{short}-{build}.log")
                    wall, cpu = timed_build(directory, BUILDS[build], log)
                    results.setdefault((build, short), []).append((wall, cpu))
                    print(f"{build:16} {short}  round {round_ + 1}: {wall:6.1f} s wall, {cpu:6.1f} s CPU",
                          file=sys.stderr, flush=True)
        print(f"| build | {' | '.join(short for short, _ in commits)} |")
        print(f"|---|{'---|' * len(commits)}")
        for build in builds:
            cells = []
            first = None
            for short, _ in commits:
                runs = results[(build, short)]
                walls = sorted(w for w, _ in runs)
                median = statistics.median(walls)
                cpu = statistics.median(c for _, c in runs)
                cell = f"{median:.1f} s ({walls[0]:.1f}–{walls[-1]:.1f}; CPU {cpu:.1f} s)"
                if first is None:
                    first = median
                else:
                    cell += f", {100 * (median / first - 1):+.0f} %"
                cells.append(cell)
            print(f"| `swift build {' '.join(BUILDS[build])}` | {' | '.join(cells)} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
