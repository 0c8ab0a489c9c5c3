#!/usr/bin/env bash
# Consumer check: OpenSwiftData works as a *versioned* dependency, the way a new user adds it.
#
#   scripts/consumer-check.sh [REVISION]      # default HEAD (committed state; local edits are not seen)
#
# 1. The repository's tree at REVISION becomes a fresh git repository tagged 0.1.0.
# 2. A throwaway client package — the Getting started article's manifest (scripts/consumer-check/Package.swift:
#    `.package(url: …, from: "0.1.0")`, the `SwiftData` product) and the README's trips example
#    (Tests/ReadmeTests/Examples/Trips.swift) with scripts/consumer-check/main.swift — resolves it
#    *without* OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX, i.e. with the default manifest, which SwiftPM
#    must accept (no unsafe flags) and which fetches the swift-syntax package.
# 3. A SwiftPM mirror sends the manifest's URL to the tagged repository. swift-syntax comes from
#    one of two places, and the check says which:
#    - a local bundle: when ../shared/vendor/swift-syntax-*.bundle exists beside the repository (the
#      offline machines this project is developed on), a second mirror sends
#      https://github.com/swiftlang/swift-syntax.git to a clone of it; nothing goes to the network;
#    - the network: otherwise (a plain clone), SwiftPM fetches swift-syntax from its URL, as any
#      client of the package would.
# 4. `swift build` (debug: swift-syntax from source, the macros, the library), then the program runs
#    and its output must equal scripts/consumer-check/expected-output.txt.
#
# Environment: CONSUMER_CHECK_BUILD_TIMEOUT (seconds for the build, default 1200),
# CONSUMER_CHECK_KEEP=1 keeps the temporary directory. Exit status 0 only when everything passed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
revision=${1:-HEAD}
build_timeout=${CONSUMER_CHECK_BUILD_TIMEOUT:-1200}
check="$root/scripts/consumer-check"
started=$SECONDS

say() { printf 'consumer-check: %s\n' "$*"; }
fail() { printf 'consumer-check: FAIL: %s\n' "$*" >&2; exit 1; }
elapsed() { local s=$((SECONDS - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# A local swift-syntax bundle when there is one beside the repository; otherwise the network.
bundle=$(ls "$root"/../shared/vendor/swift-syntax-*.bundle 2>/dev/null | sort | tail -n 1 || true)
if [ -n "$bundle" ]; then
    syntax_source="the local bundle $bundle (offline)"
else
    syntax_source="https://github.com/swiftlang/swift-syntax.git (no bundle in $(cd "$root/.." && pwd)/shared/vendor/; needs the network)"
fi
for f in Package.swift main.swift expected-output.txt; do
    [ -f "$check/$f" ] || fail "missing $check/$f"
done
[ -f "$root/Tests/ReadmeTests/Examples/Trips.swift" ] || fail "missing Tests/ReadmeTests/Examples/Trips.swift"
sha=$(git -C "$root" rev-parse --verify "$revision^{commit}") || fail "unknown revision '$revision'"
if [ "$revision" = HEAD ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
    say "note: uncommitted changes are not part of the check (it builds the committed $sha)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/openswiftdata-consumer.XXXXXX")
if [ "${CONSUMER_CHECK_KEEP:-0}" = 1 ]; then
    say "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
# The default manifest is the point: no toolchain swift-syntax, no unsafe flags.
unset OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX

say "OpenSwiftData at ${sha:0:12} tagged 0.1.0"
say "swift-syntax from $syntax_source"
library="$work/OpenSwiftData"
mkdir -p "$library"
git -C "$root" archive "$sha" | tar -x -C "$library"
git -C "$library" init -q
git -C "$library" add -A
git -C "$library" -c user.name=consumer-check -c user.email=consumer-check@localhost \
    commit -q -m "OpenSwiftData at $sha"
git -C "$library" tag 0.1.0
[ -z "$bundle" ] || git clone -q "$bundle" "$work/swift-syntax"

client="$work/TripPlanner"
mkdir -p "$client/Sources/TripPlanner"
cp "$check/Package.swift" "$client/Package.swift"
cp "$root/Tests/ReadmeTests/Examples/Trips.swift" "$check/main.swift" "$client/Sources/TripPlanner/"
url=$(sed -n 's/.*\.package(url: "\([^"]*\)".*/\1/p' "$client/Package.swift")
[ -n "$url" ] || fail "no .package(url: …) in scripts/consumer-check/Package.swift"

cd "$client"
# Everything SwiftPM caches stays in the temporary directory; prebuilt swift-syntax downloads are
# off (the check is about building from the package, and the bundle path is offline).
swiftpm=(--cache-path "$work/cache" --manifest-cache local --disable-experimental-prebuilts)
swift package config set-mirror --original "$url" --mirror "file://$library"
if [ -n "$bundle" ]; then
    swift package config set-mirror --original https://github.com/swiftlang/swift-syntax.git \
        --mirror "file://$work/swift-syntax"
fi

phase=$SECONDS
if ! timeout 300 swift package "${swiftpm[@]}" resolve >"$work/resolve.log" 2>&1; then
    sed 's/^/  /' "$work/resolve.log" >&2
    [ -n "$bundle" ] || say "note: swift-syntax was to come from the network (no local bundle); is it reachable?"
    fail "resolving OpenSwiftData from: \"0.1.0\" failed (see above)"
fi
say "resolved in $(elapsed $phase): $(grep -o '"identity" : "[^"]*"\|"version" : "[^"]*"' Package.resolved | cut -d'"' -f4 | paste -sd' ' -)"

phase=$SECONDS
status=0
timeout "$build_timeout" swift build "${swiftpm[@]}" >"$work/build.log" 2>&1 || status=$?
if [ $status -ne 0 ]; then
    grep -E 'error|unsafe' "$work/build.log" | head -n 20 | sed 's/^/  /' >&2 || true
    tail -n 5 "$work/build.log" | sed 's/^/  /' >&2
    if grep -q 'unsafe build flags' "$work/build.log"; then
        fail "SwiftPM refuses OpenSwiftData as a versioned dependency (unsafe build flags in its default manifest)"
    fi
    [ $status -eq 124 ] && fail "swift build did not finish in ${build_timeout}s"
    fail "swift build of the client failed (exit $status) after $(elapsed $phase)"
fi
say "built in $(elapsed $phase) (debug; swift-syntax from source)"

phase=$SECONDS
"$client/.build/debug/TripPlanner" "$work/trips.store" >"$work/output.txt" 2>"$work/run.log" \
    || { cat "$work/run.log" >&2; fail "the client program failed"; }
if ! diff -u "$check/expected-output.txt" "$work/output.txt"; then
    fail "the client program's output differs from scripts/consumer-check/expected-output.txt (diff above)"
fi
say "ran in $(elapsed $phase): $(paste -sd'|' "$work/output.txt")"
say "PASS in $(elapsed $started)"
