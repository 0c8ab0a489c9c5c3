#!/usr/bin/env bash
# The library's layering rules (Docs/Design.md), checked by `make lint`:
#   - only the SQLite wrapper (Sources/OpenSwiftData/SQLite) calls SQLite's C API (`sqlite3_…(`);
#   - the context layer (Sources/OpenSwiftData/Context) never names a statement or a row of one:
#     the store layer reads and writes rows (RowCodec, StoreWriter).
# Comments are not code: lines whose text starts with `//` are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."

code_lines() {  # PATTERN PATH… → file:line:text of the matching lines that are not comments
    local pattern=$1
    shift
    grep -rnE --include='*.swift' "$pattern" "$@" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'
}

status=0
calls=$(code_lines '\bsqlite3_[a-z0-9_]+[[:space:]]*\(' Sources/OpenSwiftData | grep -v '^Sources/OpenSwiftData/SQLite/')
if [ -n "$calls" ]; then
    echo "layering: SQLite's C API called outside Sources/OpenSwiftData/SQLite:" >&2
    echo "$calls" >&2
    status=1
fi
statements=$(code_lines '\bSQLite(Statement|Row)\b' Sources/OpenSwiftData/Context)
if [ -n "$statements" ]; then
    echo "layering: the context layer names a statement (read rows through Store/RowCodec):" >&2
    echo "$statements" >&2
    status=1
fi
[ $status -eq 0 ] && echo "layering: ok"
exit $status
