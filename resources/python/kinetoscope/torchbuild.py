"""Matches libkinetoscope_torch.so to the torch running in this process, and builds it for that torch
on first use (docs/torch-observer.md, "Which library is loaded").

The prebuilt library links the libtorch it was built against (Debian's 1.13). Loaded into a process
running another torch (a pip torch 2.x) it would map a second libtorch, so its sidecar
(libkinetoscope_torch.json: torch version, C++ ABI, kstorch ABI, libtorch's directory) is compared
with the running torch before it is loaded. Without a match, the observer's sources are compiled
against the running torch's own headers and libraries into a per-user cache, once per torch
version and ABI.

Standalone (no imports from the package): the live bootstrap loads it from its file.
"""
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

# kstorch_abi_version() of the library this package drives (core/torch/entrypoints.cpp).
KSTORCH_ABI = 3
LIBRARY = "libkinetoscope_torch.so"
SIDECAR = "libkinetoscope_torch.json"
SOURCES = ("entrypoints.cpp", "inputformat.cpp", "memoryreporter.cpp", "observer.cpp",
           "observeroptions.cpp", "pyapi.cpp", "pystack.cpp")
# A compile that has not finished by then is stuck (a loaded 2-core machine takes about a minute).
BUILD_TIMEOUT_S = 1800


def options_text(options):
    """The observer's options (record_shapes, profile_memory, with_stack, shape_sampling, include,
    exclude, stack_prefixes) as kstorch_enable() takes them: "key=value" lines, one per list item
    (core/torch/observeroptions.h). Bytes."""
    lines = []
    for key in ("record_shapes", "profile_memory", "with_stack"):
        if key in options:
            lines.append(f"{key}={int(bool(options[key]))}")
    if options.get("shape_sampling") is not None:
        lines.append(f"shape_sampling={int(options['shape_sampling'])}")
    for key, line_key in (("include", "include"), ("exclude", "exclude"), ("stack_prefixes", "stack_prefix")):
        values = options.get(key) or ()
        for v in ([values] if isinstance(values, str) else values):
            v = str(v)
            if "\n" in v or "\r" in v:
                raise ValueError(f"{key}: a prefix with a line break: {v!r}")
            lines.append(f"{line_key}={v}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def build_mode():
    """KINETOSCOPE_TORCH_BUILD: "force" skips the prebuilt library (a cached build is still reused),
    "never" never builds; anything else builds only when no prebuilt library matches."""
    mode = os.environ.get("KINETOSCOPE_TORCH_BUILD", "").strip().lower()
    if mode in ("never", "off", "no", "0"):
        return "never"
    return "force" if mode == "force" else "auto"


def running_torch():
    """The torch of this process: version, C++ ABI and the directory of its libtorch (None when it
    cannot be told)."""
    torch = sys.modules["torch"]
    lib_dir = None
    libtorch = os.path.join(os.path.dirname(os.path.abspath(torch.__file__)), "lib", "libtorch.so")
    if os.path.exists(libtorch):
        lib_dir = os.path.dirname(os.path.realpath(libtorch))
    return {"torch_version": str(torch.__version__),
            "cxx11_abi": int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True))),
            "torch_lib_dir": lib_dir}


def release(version):
    """(major, minor, patch) of a torch version: libtorch's CMake package says "1.13.0" where the
    same build's Python says "1.13.0a0", and pip builds add a local "+cu121"."""
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(version))
    parts = [int(p) for p in m.group(1).split(".")][:3] if m else []
    return tuple(parts + [0] * (3 - len(parts)))


def read_sidecar(library):
    """The sidecar next to library, or raises ValueError saying why it cannot be used."""
    path = os.path.join(os.path.dirname(library), SIDECAR)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"no {SIDECAR} beside it") from None
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: unreadable ({e})") from None
    if not isinstance(data, dict) or not {"torch_version", "cxx11_abi", "kstorch_abi"} <= data.keys():
        raise ValueError(f"{path}: lacks torch_version, cxx11_abi or kstorch_abi")
    return data


def mismatch(sidecar, running, abi):
    """Why a library with this sidecar cannot run in this process, or None."""
    if sidecar.get("kstorch_abi") != abi:
        return f"kstorch ABI {sidecar.get('kstorch_abi')}, expected {abi}"
    if release(sidecar["torch_version"]) != release(running["torch_version"]):
        return f"built for torch {sidecar['torch_version']}, running torch {running['torch_version']}"
    if int(sidecar["cxx11_abi"]) != running["cxx11_abi"]:
        return f"built with _GLIBCXX_USE_CXX11_ABI={sidecar['cxx11_abi']}, torch uses {running['cxx11_abi']}"
    built_dir, run_dir = sidecar.get("torch_lib_dir"), running.get("torch_lib_dir")
    if built_dir and run_dir and os.path.realpath(built_dir) != os.path.realpath(run_dir):
        return f"links the libtorch in {built_dir}, torch runs the one in {run_dir}"
    return None


def cache_root():
    env = os.environ.get("KINETOSCOPE_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kinetoscope")


def unsafe_path(path, own=True):
    """Why a library under path could be planted by someone else, or None (OpenSSH's rule for its
    keys, widened to sticky directories such as /tmp): path itself, when own, must belong to this
    user and be writable by nobody else; each existing directory above it must belong to this user
    or root and, when others can write to it, be sticky (so that nobody else can rename what is in
    it). A library loaded from the cache runs inside the user's program."""
    import stat

    uid = os.geteuid()
    p = os.path.abspath(path)
    first = True
    while True:
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            st = None
        except OSError as e:
            return f"{p}: {e.strerror or e}"
        if st is not None:
            if first and own:
                if st.st_uid != uid:
                    return f"{p} belongs to uid {st.st_uid}, not to this user (uid {uid})"
                if st.st_mode & 0o022:
                    return f"{p} is writable by others (mode {stat.S_IMODE(st.st_mode):o})"
            elif stat.S_ISLNK(st.st_mode):
                # A link above the cache is judged by where it leads; the link itself is not.
                pass
            else:
                if st.st_uid not in (uid, 0):
                    return f"{p} belongs to uid {st.st_uid}, neither this user nor root"
                if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
                    return f"{p} is writable by others and not sticky (mode {stat.S_IMODE(st.st_mode):o})"
        first = False
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent


def cache_dir(running, abi):
    version = re.sub(r"[^A-Za-z0-9._+-]", "_", running["torch_version"])
    return os.path.join(cache_root(), f"torch-{version}-cxx11abi{running['cxx11_abi']}-abi{abi}")


def sources():
    """(directory of the .cpp files, include directories), or None: installed flat in
    share/kinetoscope/torch-observer, or core/torch and core/capi of the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("KINETOSCOPE_TORCH_SOURCES")
    candidates = [(env, [env])] if env else []
    installed = os.path.normpath(os.path.join(here, "..", "..", "torch-observer"))
    candidates.append((installed, [installed]))
    tree = os.path.normpath(os.path.join(here, "..", "..", "..", "core"))
    candidates.append((os.path.join(tree, "torch"), [os.path.join(tree, "torch"), os.path.join(tree, "capi")]))
    for src, includes in candidates:
        if all(os.path.exists(os.path.join(src, s)) for s in SOURCES) and any(
                os.path.exists(os.path.join(i, "kinetoscope.h")) for i in includes):
            return src, includes
    return None


def _cached(directory, running, abi, digest):
    """The cached library when its sidecar matches the running torch and, where the sources are
    here to compare, was built from these sources (a newer Kinetoscope's sources with an older
    build in the cache are built again)."""
    library = os.path.join(directory, LIBRARY)
    if not os.path.exists(library):
        return None
    for f in (library, os.path.join(directory, SIDECAR)):
        if os.path.exists(f) and unsafe_path(f):
            return None
    try:
        sidecar = read_sidecar(library)
    except ValueError:
        return None
    if mismatch(sidecar, running, abi) is not None:
        return None
    if digest is not None and sidecar.get("sources") != digest:
        return None
    return library


def _torch_paths():
    """Include and library directories from the running torch's cpp_extension; importing it may
    print (a CUDA_HOME notice), which goes to the build log rather than the program's output."""
    noise = io.StringIO()
    with contextlib.redirect_stdout(noise), contextlib.redirect_stderr(noise):
        from torch.utils import cpp_extension
        return cpp_extension.include_paths(), cpp_extension.library_paths(), noise.getvalue()


def _write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def ensure(running, abi, kinetoscope_lib, say=None):
    """The path of a library built for the running torch: the cached one, or one built now.
    Returns (path, None) or (None, why). say(line) is told one line when a build starts and one
    when it cannot be had (default: stderr)."""
    if say is None:
        def say(line):
            print(line, file=sys.stderr, flush=True)
    version = running["torch_version"]
    directory = cache_dir(running, abi)

    def give_up(why, log=None):
        where = f" (log: {log})" if log else ""
        say(f"kinetoscope: torch operators are not recorded: cannot build the torch observer for torch {version}: {why}{where}")
        return None, f"cannot build the torch observer for torch {version}: {why}{where}"

    # Nothing is loaded from, or built into, a cache that someone else could write to.
    for path in (directory, cache_root()):
        why = unsafe_path(path, own=os.path.exists(path))
        if why:
            return give_up(f"unsafe cache directory: {why} (set KINETOSCOPE_CACHE_DIR)")
    # Nor a cached library (or its sidecar) that someone else could have replaced: said, not
    # silently built over.
    for f in (os.path.join(directory, LIBRARY), os.path.join(directory, SIDECAR)):
        why = unsafe_path(f) if os.path.lexists(f) else None
        if why:
            return give_up(f"unsafe cached library: {why} (remove it, or set KINETOSCOPE_CACHE_DIR)")
    src = sources()
    digest = _sources_digest(src) if src else None
    found = _cached(directory, running, abi, digest)
    if found:
        return found, None

    if build_mode() == "never":
        return None, "no prebuilt library matches and KINETOSCOPE_TORCH_BUILD=never"
    cxx = shlex.split(os.environ.get("CXX") or "c++")
    if not cxx or shutil.which(cxx[0]) is None:
        return give_up(f"no C++ compiler ({cxx[0] if cxx else 'CXX'} not found; set CXX)")
    if src is None:
        return give_up("the observer's sources are not installed (share/kinetoscope/torch-observer)")
    if not kinetoscope_lib or not os.path.exists(kinetoscope_lib):
        return give_up("libkinetoscope.so.1 was not loaded from a file")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        lock = open(os.path.join(directory, ".lock"), "w")
    except OSError as e:
        return give_up(f"cache directory {directory}: {e.strerror or e}")
    why = unsafe_path(directory)
    if why:
        lock.close()
        return give_up(f"unsafe cache directory: {why} (set KINETOSCOPE_CACHE_DIR)")
    with lock:
        import fcntl

        # Another process building the same library: wait for it, then use its result.
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = _cached(directory, running, abi, digest)
        if found:
            return found, None
        # A failed build is not retried by every process (each try costs a minute) until the
        # sources change or a build is forced.
        failed = os.path.join(directory, "build.failed")
        stamp = _sources_stamp(src)
        with contextlib.suppress(OSError):
            with open(failed, encoding="utf-8") as f:
                if f.read() == stamp and build_mode() != "force":
                    return give_up("an earlier build failed (KINETOSCOPE_TORCH_BUILD=force retries)",
                                   os.path.join(directory, "build.log"))
        path, why = _build(running, abi, kinetoscope_lib, directory, src, digest, cxx, say, give_up)
        with contextlib.suppress(OSError):
            if path is None:
                _write_atomic(failed, stamp)
            elif os.path.exists(failed):
                os.unlink(failed)
        return path, why


def _sources_digest(src):
    """SHA-256 of the observer's sources and headers as found (sources())."""
    import hashlib
    h = hashlib.sha256()
    srcdir, includes = src
    files = [os.path.join(srcdir, s) for s in SOURCES]
    for d in dict.fromkeys([srcdir] + list(includes)):
        with contextlib.suppress(OSError):
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".h"))
    for f in dict.fromkeys(files):
        with contextlib.suppress(OSError), open(f, "rb") as fh:
            h.update(os.path.basename(f).encode() + b"\0" + fh.read() + b"\0")
    return h.hexdigest()


def _sources_stamp(src):
    return json.dumps([[s, os.stat(os.path.join(src[0], s)).st_mtime_ns] for s in SOURCES])


def _build(running, abi, kinetoscope_lib, directory, src, digest, cxx, say, give_up):
    version = running["torch_version"]
    log = os.path.join(directory, "build.log")
    jobs = max(1, min(len(SOURCES), os.cpu_count() or 1))
    estimate = 8 * -(-len(SOURCES) // jobs)
    say(f"kinetoscope: building the torch observer for torch {version} (once, ~{estimate} s)...")
    started = time.monotonic()
    try:
        includes, libdirs, noise = _torch_paths()
    except Exception as e:
        return give_up(f"torch.utils.cpp_extension: {type(e).__name__}: {e}")
    kslib = os.path.realpath(kinetoscope_lib)
    srcdir, own_includes = src
    objdir = tempfile.mkdtemp(prefix=".build.", dir=directory)
    fd, tmp_lib = tempfile.mkstemp(prefix="." + LIBRARY + ".", dir=directory)
    os.close(fd)
    flags = ["-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
             "-DNDEBUG", f"-D_GLIBCXX_USE_CXX11_ABI={running['cxx11_abi']}"]
    flags += [f"-I{d}" for d in own_includes + list(includes) + [sysconfig.get_paths()["include"]]]
    # One process per source, as many at once as there are cores: libtorch's headers make each
    # compile long.
    commands = [cxx + flags + ["-c", os.path.join(srcdir, s), "-o", os.path.join(objdir, s + ".o")]
                for s in SOURCES]
    rpaths = list(libdirs) + [os.path.dirname(kslib)]
    link = cxx + ["-shared", "-o", tmp_lib] + [os.path.join(objdir, s + ".o") for s in SOURCES]
    link += [f"-L{d}" for d in libdirs] + [f"-Wl,-rpath,{d}" for d in rpaths]
    link += ["-ltorch", "-ltorch_cpu", "-lc10", kslib, "-ldl", "-Wl,--no-undefined"]
    ok = False
    try:
        with open(log, "w", encoding="utf-8") as out:
            out.write(f"torch {version} ({running}); kinetoscope {kslib}\n{noise}")
            ok = _run_all(commands, out, jobs) and _run_all([link], out, 1)
            out.write(f"{'built' if ok else 'FAILED'} in {time.monotonic() - started:.0f} s\n")
        if not ok:
            return give_up(_first_error(log), log)
        library = os.path.join(directory, LIBRARY)
        os.chmod(tmp_lib, 0o755)
        os.replace(tmp_lib, library)
        # No torch_lib_dir: the library names torch's libraries by their sonames, which the torch
        # of any process reaching here has already loaded, so another environment with the same
        # torch (a second venv) reuses this build rather than rebuilding it over and over.
        sidecar = {"torch_version": version, "cxx11_abi": running["cxx11_abi"], "kstorch_abi": abi,
                   "sources": digest}
        # Written last: a library without its sidecar is never taken for a finished build.
        _write_atomic(os.path.join(directory, SIDECAR), json.dumps(sidecar) + "\n")
        return library, None
    except OSError as e:
        return give_up(f"{e.filename or directory}: {e.strerror or e}", log)
    finally:
        shutil.rmtree(objdir, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.unlink(tmp_lib)


def _first_error(log):
    """The build's first error for the one-line message: a missing header names the package to
    install (Python.h: python3-dev; nlohmann/json.hpp: nlohmann-json3-dev)."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.search(r"fatal error: (\S+): No such file", line)
                if m:
                    return f"the compiler found no {m.group(1)}"
                if re.search(r": error: |undefined reference", line) and not line.startswith("$ "):
                    return "the compiler failed: " + line.strip()[:200]
    except OSError:
        pass
    return "the compiler failed"


def _run_all(commands, out, jobs):
    """Runs the commands, jobs at a time, each one's output into a file of its own and then into
    out (pipes could fill while another is waited for). True when all succeeded."""
    pending = list(commands)
    running = []
    ok = True
    while pending or running:
        while pending and len(running) < jobs and ok:
            cmd = pending.pop(0)
            own = tempfile.TemporaryFile()
            proc = subprocess.Popen(cmd, stdout=own, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            running.append((proc, own, cmd, time.monotonic()))
        if not running:
            break
        proc, own, cmd, started = running.pop(0)
        try:
            proc.wait(timeout=max(1, BUILD_TIMEOUT_S - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        own.seek(0)
        out.write("$ " + shlex.join(cmd) + "\n" + own.read().decode("utf-8", "replace"))
        own.close()
        if proc.returncode != 0:
            out.write(f"exit status {proc.returncode}\n")
            ok = False
    return ok
