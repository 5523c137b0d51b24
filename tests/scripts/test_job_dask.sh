#!/bin/sh
# analyze-job --dask on a local Dask cluster (Debian's python3-distributed), with a worker killed
# while it runs a rank and a corrupt rank: every good rank must still be in the job summary.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
if ! /usr/bin/python3 -c "import distributed" 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 cannot import distributed (Debian: apt install python3-distributed)"
    exit 77
fi
exec /usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/job_dask_check.py"
