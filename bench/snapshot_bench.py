#!/usr/bin/env python3
"""Opening a large CUDA memory snapshot: `kinetoscope snapshot --json` against Python's pickle.load
of the same file, measured in the same run (wall time and peak RSS of each, one after the other).

The snapshot is generated here (tests/scripts/snapshot_gen.py: Python's pickle, protocol 4, one
frames list per entry with references to shared frame dicts, as torch's _dump_snapshot writes) to
about --mb MiB, and removed afterwards unless --keep names where to leave it. --bulk writes it with
bench/snapshot_bulkgen.py instead (the same opcodes from precomputed pieces: a gigabyte in seconds).
--gui BUILD/bench/bench_snapshotview also opens it in the viewer's window and redraws the timeline.

usage: bench/snapshot_bench.py BUILD/app/kinetoscope [--mb 1024] [--depth 100:200] [--keep FILE]
                               [--bulk] [--gui BUILD/bench/bench_snapshotview]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tests", "scripts", "snapshot_gen.py")
BULKGEN = os.path.join(HERE, "snapshot_bulkgen.py")


def measure(argv, stdout=subprocess.DEVNULL):
    """Runs argv; returns (wall seconds, peak RSS in MiB, stdout text or None)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=stdout)
    out = p.stdout.read() if stdout == subprocess.PIPE else None
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("failed (%d): %s" % (status, " ".join(argv)))
    return wall, ru.ru_maxrss / 1024.0, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kinetoscope")
    ap.add_argument("--mb", type=float, default=1024)
    ap.add_argument("--depth", default="100:200")
    ap.add_argument("--keep")
    ap.add_argument("--bulk", action="store_true")
    ap.add_argument("--gui")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ks-snapbench-")
    path = a.keep or os.path.join(tmp, "snapshot.pickle")
    try:
        t0 = time.monotonic()
        if a.bulk:
            subprocess.run([sys.executable, BULKGEN, path, "--mb", str(a.mb), "--depth", a.depth], check=True,
                           stdout=subprocess.DEVNULL)
            entries = -1
        else:
            probe = os.path.join(tmp, "probe.pickle")
            subprocess.run([sys.executable, GEN, probe, "--entries", "5000", "--depth", a.depth], check=True)
            per_entry = os.path.getsize(probe) / 5000.0
            entries = int(a.mb * 1024 * 1024 / per_entry)
            t0 = time.monotonic()
            subprocess.run([sys.executable, GEN, path, "--entries", str(entries), "--depth", a.depth, "--oom"],
                           check=True)
        size = os.path.getsize(path)
        print("generated %s: %.1f MiB (%.0f s)" % (path, size / 1048576.0, time.monotonic() - t0))
        # Warm the page cache for both readers alike.
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
        ks_wall, ks_rss, out = measure([a.kinetoscope, "snapshot", path, "--json", "--top", "5"],
                                       stdout=subprocess.PIPE)
        doc = json.loads(out)
        py_wall, py_rss, _ = measure([sys.executable, "-c",
                                      "import pickle,sys; pickle.load(open(sys.argv[1], 'rb'))", path])
        print("kinetoscope snapshot: %.2f s load (%.2f s whole command), peak RSS %.0f MiB, model %.0f MiB"
              % (doc["load_seconds"], ks_wall, ks_rss, doc["model_bytes"] / 1048576.0))
        print("python pickle.load:   %.2f s, peak RSS %.0f MiB" % (py_wall, py_rss))
        print("load speed-up %.1fx, memory %.1fx less; peak %d bytes on device 0 at entry %s"
              % (py_wall / doc["load_seconds"], py_rss / ks_rss, doc["devices"][0]["peak_bytes"],
                 doc["devices"][0]["peak_entry"]))
        if a.gui:
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
            out = subprocess.run([a.gui, path], check=True, env=env, capture_output=True, text=True).stdout
            print("viewer (%s):\n  %s" % (os.path.basename(a.gui), out.strip().replace("\n", "\n  ")))
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
