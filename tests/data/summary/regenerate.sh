#!/bin/sh
# Regenerates the expected tables of cases.txt with torch's own code (needs torch; Debian:
# /usr/bin/python3 with python3-torch 1.13). Run from anywhere:
#   tests/data/summary/regenerate.sh [SHARED_TRACES_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
traces=${1:-$here/../../../../shared/traces}
python=${PYTHON:-/usr/bin/python3}
grep -v '^#' "$here/cases.txt" | while read -r name trace opts; do
    [ -n "$name" ] || continue
    case "$trace" in
    data/*) path=$here/${trace#data/} ;;
    *) path=$traces/$trace ;;
    esac
    # shellcheck disable=SC2086
    "$python" "$here/../../scripts/torch_table.py" "$path" $opts > "$here/$name.txt"
    echo "$name: $(wc -l < "$here/$name.txt") lines"
done
