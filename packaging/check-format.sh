#!/bin/sh
# Fails (and lists the files) when any C/C++ source differs from .clang-format. Run by .ci/run.
#   packaging/check-format.sh        check
#   packaging/check-format.sh --fix  reformat in place
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v clang-format > /dev/null 2>&1; then
    echo "check-format: clang-format not installed (packaging/install-deps.sh installs it)" >&2
    exit 1
fi
files="$(git ls-files 'core/*.cpp' 'core/*.h' 'ui/*.cpp' 'ui/*.h' 'app/*.cpp' 'app/*.h' 'tests/*.cpp' 'tests/*.h' \
    'tests/*.c' 'bench/*.cpp' 'bench/*.h')"
if [ "${1:-}" = "--fix" ]; then
    # shellcheck disable=SC2086
    clang-format -i $files
    exit 0
fi
bad=""
for f in $files; do
    clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
    echo "check-format: these files differ from .clang-format (packaging/check-format.sh --fix):" >&2
    for f in $bad; do echo "  $f" >&2; done
    exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files formatted"
