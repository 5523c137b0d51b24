#!/bin/sh
# Golden test: `kinetoscope analyze --csv` against TraceLens's published outputs for the traces in
# the shared reference folder ($KS_SHARED_TRACES/../reference/tracelens/<trace>/).
set -u
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}" "${KS_SHARED_TRACES:?}"
REF="$KS_SHARED_TRACES/../reference/tracelens"
if [ ! -d "$REF" ]; then
    echo "no TraceLens reference data at $REF; skipping"
    exit 0
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
status=0
count=0
for dir in "$REF"/*/; do
    name=$(basename "$dir")
    trace=""
    for ext in .json.gz .json; do
        [ -f "$KS_SHARED_TRACES/$name$ext" ] && trace="$KS_SHARED_TRACES/$name$ext" && break
    done
    if [ -z "$trace" ]; then
        echo "== $name: trace not found, skipped"
        continue
    fi
    if ! "$KS_BIN" analyze "$trace" --csv "$OUT/$name" >"$OUT/$name.log" 2>&1; then
        echo "== $name: kinetoscope analyze failed"; cat "$OUT/$name.log"; status=1; continue
    fi
    python3 "$KS_SOURCE_DIR/tests/scripts/analyze_tracelens_check.py" "$OUT/$name" "$dir" || status=1
    count=$((count + 1))
done
echo "$count traces compared"
exit $status
