"""Analyse a distributed job's ranks on a Dask cluster: one task per rank.

Each task runs ``kinetoscope analyze-rank FILE --json`` on a worker and returns the rank's summary;
the driver gathers them and writes the job summary (.kjob) that ``kinetoscope analyze-job`` and the
GUI read. Only summaries travel: a rank's trace is loaded and dropped on the worker that reads it.

    kinetoscope analyze-job DIR --dask tcp://scheduler:8786 -o job.kjob    (runs this driver)
    python3 cluster.py --scheduler local:4 --kinetoscope /usr/bin/kinetoscope -o job.kjob \\
        --file 0:/traces/rank-0.json.gz --file 1:/traces/rank-1.json.gz

A task that fails (unreadable trace, analyze-rank error) is retried by Dask, and so is one whose
worker died; a rank still failing after that is reported in the file's "failures" and never costs
the other ranks. Needs Dask's distributed package (Debian: python3-distributed) on the driver and
the workers; the workers need the kinetoscope executable (--kinetoscope: its path on the workers),
not this package. Run by path, as analyze-job does, the module needs no libkinetoscope either.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FORMAT_VERSION = 1
RETRIES = 2  # on top of the first attempt


def analyze_rank(kinetoscope, path, rank_hint, threads=0):
    """The Dask task: one rank's summary as a dict (raises on failure, so that Dask retries).
    threads: the reader's parser threads, 0 for one per core of the worker's machine."""
    cmd = [kinetoscope, "analyze-rank", path, "--json"]
    if rank_hint >= 0:
        cmd += ["--rank-hint", str(rank_hint)]
    if threads > 0:
        cmd += ["--threads", str(threads)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        message = lines[-1] if lines else "analyze-rank exited with %d" % proc.returncode
        prefix = "kinetoscope: %s: " % path  # the failure is reported next to the path already
        raise RuntimeError(message[len(prefix):] if message.startswith(prefix) else message)
    return json.loads(proc.stdout)


def _describe(exc):
    text = str(exc).strip() or type(exc).__name__
    if type(exc).__name__ == "KilledWorker":
        return "its worker died on every attempt (KilledWorker)"
    return text.splitlines()[-1]


def analyze_job(client, kinetoscope, files, progress=None, threads=0):
    """files: [(rank_hint, path)]. Returns the job summary dict (format "kinetoscope-job")."""
    from distributed import as_completed

    futures = {}
    for hint, path in files:
        future = client.submit(analyze_rank, kinetoscope, path, hint, threads,
                               key="analyze-rank-%d-%s" % (hint, path), retries=RETRIES, pure=False)
        futures[future] = (hint, path)
    ranks, failures = [], []
    done = 0
    for future in as_completed(list(futures)):
        hint, path = futures[future]
        done += 1
        try:
            summary = future.result()
            if summary.get("format") != "kinetoscope-rank":
                raise RuntimeError("analyze-rank printed something else than a rank summary")
            if summary.get("rank", -1) < 0:
                summary["rank"] = hint
            ranks.append(summary)
            ok = True
        except Exception as exc:  # one rank's failure never stops the others
            failures.append({"path": path, "rank": hint, "error": _describe(exc), "attempts": RETRIES + 1})
            ok = False
        if progress:
            progress(done, len(futures), path, ok)
    ranks.sort(key=lambda r: r.get("rank", -1))
    failures.sort(key=lambda f: f["rank"])
    return {"format": "kinetoscope-job", "version": FORMAT_VERSION, "ranks": ranks, "failures": failures,
            "warnings": []}


def write_job(path, job):
    """Atomic: readers see the old file or the whole new one."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(job, f)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _client(scheduler):
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise RuntimeError("Dask's distributed package is not installed for %s (Debian: python3-distributed): %s"
                           % (sys.executable, exc))

    if scheduler.startswith("local:"):
        n = int(scheduler[len("local:"):])
        if not 1 <= n <= 4 * (os.cpu_count() or 1):
            raise ValueError("local:N needs N workers from 1 to %d (four per core), got %d" % (4 * (os.cpu_count() or 1), n))
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    return Client(scheduler, timeout="60s"), None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", required=True, help="tcp://host:port, or local:N")
    parser.add_argument("--kinetoscope", required=True, help="the kinetoscope executable on the workers")
    parser.add_argument("-o", "--output", required=True, help="the .kjob file to write")
    parser.add_argument("--file", action="append", default=[], help="RANK:PATH (RANK -1 when unknown)")
    args = parser.parse_args(argv)
    files = []
    for spec in args.file:
        hint, _, path = spec.partition(":")
        files.append((int(hint), path))
    if not files:
        parser.error("no --file given")
    try:
        client, cluster = _client(args.scheduler)
    except Exception as exc:
        print("kinetoscope analyze-job: cannot use the Dask scheduler %s: %s" % (args.scheduler, _describe(exc)),
              file=sys.stderr)
        return 1
    tty = sys.stderr.isatty()

    def progress(done, total, path, ok):
        if tty:
            print("\r[%d/%d] %s%s\x1b[K" % (done, total, "" if ok else "FAILED ", os.path.basename(path)),
                  end="\n" if done == total else "", file=sys.stderr)

    # Workers of a local cluster share this machine's cores; remote ones use all of theirs.
    threads = 0
    if args.scheduler.startswith("local:"):
        threads = max(1, (os.cpu_count() or 1) // max(1, int(args.scheduler[len("local:"):])))
    try:
        job = analyze_job(client, args.kinetoscope, files, progress, threads)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    write_job(args.output, job)
    return 0


if __name__ == "__main__":
    sys.exit(main())
