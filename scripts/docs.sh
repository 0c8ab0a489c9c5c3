#!/usr/bin/env bash
# Builds the DocC documentation of the three library products as static HTML, offline, with the
# toolchain's docc: symbol graphs from one debug build (its own scratch path, so the normal
# .build is untouched), then `docc convert` per module with warnings treated as errors.
#
#   scripts/docs.sh [MODULE …]     default: OpenSwiftData OpenSwiftDataTesting BenchmarkKit
#
# Output: .build/docs-html/<Module>/ (open index.html through a web server: DocC's pages load
# their JSON with fetch). Environment: SWIFT (default swift), DOCC (default: docc beside swift).
set -euo pipefail

cd "$(dirname "$0")/.."
export OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX="${OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX:-1}"
SWIFT="${SWIFT:-swift}"
if [ -z "${DOCC:-}" ]; then
    DOCC="$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/docc"
    [ -x "$DOCC" ] || DOCC="$(command -v docc || true)"
fi
[ -n "$DOCC" ] && [ -x "$DOCC" ] || { echo "docs.sh: docc not found (set DOCC)" >&2; exit 1; }

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(OpenSwiftData OpenSwiftDataTesting BenchmarkKit)

scratch=.build/docs
graphs="$PWD/$scratch/symbol-graphs"
out=.build/docs-html
mkdir -p "$graphs" "$out"

# The compiler writes a module's graphs when it compiles the module, so they are kept between
# runs (an up-to-date build writes none); a graph missing after the build means the scratch
# build outlived its graphs, and it is rebuilt from scratch once.
build_graphs() {
    "$SWIFT" build --scratch-path "$scratch" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
}
graphs_missing() {
    for module in "${modules[@]}"; do [ -e "$graphs/$module.symbols.json" ] || return 0; done
    return 1
}
echo "docs.sh: building symbol graphs ($scratch)"
build_graphs
if graphs_missing; then
    echo "docs.sh: symbol graphs missing; rebuilding $scratch from scratch"
    rm -rf "$scratch"
    mkdir -p "$graphs"
    build_graphs
fi

for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "docs.sh: no catalog $catalog" >&2; exit 1; }
    # Only this module's graphs: its own and its extensions of other modules' types.
    dir="$PWD/$scratch/graphs-by-module/$module"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$graphs/$module.symbols.json" "$dir/"
    for extension in "$graphs/$module@"*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$dir/"
    done
    echo "docs.sh: docc convert $catalog"
    rm -rf "$out/$module"
    "$DOCC" convert "$catalog" \
        --additional-symbol-graph-dir "$dir" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.openswiftdata.$module" \
        --transform-for-static-hosting \
        --hosting-base-path "$module" \
        --warnings-as-errors \
        --output-path "$out/$module"
done
echo "docs.sh: documentation in $out/{$(IFS=,; echo "${modules[*]}")}"
# The testing library's API is what a team uses; the project's own QA rig stays `package`.
echo "docs.sh: public declarations per module"
python3 scripts/public-declarations.py --graphs "$graphs" --budget OpenSwiftDataTesting=300
