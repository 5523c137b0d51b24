#!/bin/sh
# The committed expectations must be exactly what trace_counts.py computes from the shared traces,
# so nobody can tune them by hand to match the reader.
set -eu
src="${KS_SOURCE_DIR:-$(dirname "$0")/../..}"
traces="${KS_SHARED_TRACES:-$src/../shared/traces}"
if [ ! -d "$traces" ]; then
    echo "shared traces not found at $traces; skipping"
    exit 0
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
/usr/bin/python3 "$src/tests/scripts/trace_counts.py" "$traces" > "$out"
if ! cmp -s "$out" "$src/tests/data/expected_counts.json"; then
    echo "tests/data/expected_counts.json is stale; regenerate it (see tests/data/README.md)" >&2
    diff "$src/tests/data/expected_counts.json" "$out" | head -40 >&2
    exit 1
fi
echo "expected_counts.json matches trace_counts.py"
