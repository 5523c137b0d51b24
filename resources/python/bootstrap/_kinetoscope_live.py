"""Streams a Python program to a Kinetoscope viewer without any change to the program.

Imported by the bootstrap sitecustomize when KINETOSCOPE_ENDPOINT is set. Talks to the viewer
through libkinetoscope (ctypes, KINETOSCOPE_LIB), which owns the socket and a background sender
thread; nothing here blocks the program on the viewer.

Steps come from the optimizer, never from the script:
  torch >= 2   the process-global optimizer step hooks (register_optimizer_step_post_hook)
  torch 1.x    each optimizer class's step() wrapped when its first instance is built
plus torch.profiler.profile.step() calls the script makes itself. Every optimizer and profiler is
its own requester and the step count is the maximum over them (KinetoStepTracker's rule), so a loop
with two optimizers, or an optimizer and a profiler, counts one step per iteration.

Capture modes (KINETOSCOPE_CAPTURE, JSON):
  native   steps, nn.Module forward and Optimizer.step ranges, every aten op, autograd function and
           record_function range recorded by libkinetoscope_torch.so (the torch observer, loaded
           when the script imports torch; with shapes/memory also input shapes and allocations;
           with memory also the parameters, gradients, optimizer state and inputs marked for the
           memory categories, as kinetoscope.profile(profile_memory=True) marks them),
           and with CUDA the autograd ops as NVTX ranges (emit_nvtx) for the injection library
  windows  torch.profiler with the chosen schedule, driven by the steps; each finished window is
           exported to a file the viewer merges (CPU ops, shapes, memory, stacks per window)
"""

import atexit
import ctypes
import functools
import json
import os
import sys
import threading

_live = None


def _declare(lib):
    c = ctypes
    sigs = {
        "ks_last_error": (c.c_char_p, []),
        "ks_stream_to": (c.c_int, [c.c_char_p, c.c_char_p]),
        "ks_stream_stop": (c.c_int, []),
        "ks_stream_active": (c.c_int, []),
        "ks_stream_step": (c.c_int64, [c.c_char_p]),
        "ks_stream_step_origin": (None, []),
        "ks_stream_log": (None, [c.c_int, c.c_char_p]),
        "ks_stream_info": (None, [c.c_char_p, c.c_char_p]),
        "ks_stream_window": (
            c.c_int,
            [c.c_char_p, c.c_int64, c.c_int64, c.c_int64, c.c_int64, c.POINTER(c.c_int64), c.c_int, c.c_int],
        ),
        "ks_stream_after_fork": (c.c_int, []),
        "ks_intern": (c.c_uint32, [c.c_char_p]),
        "ks_range_push": (None, [c.c_uint32]),
        "ks_range_pop": (None, []),
        "ks_python_push": (None, [c.c_uint32]),
        "ks_payload": (c.c_uint64, [c.c_char_p]),
        "ks_mark_payload": (None, [c.c_uint32, c.c_uint64]),
        "ks_recording": (c.c_int, []),
        "ks_now_ns": (c.c_int64, []),
        "ks_set_thread_name": (None, [c.c_char_p]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


def _program_name():
    argv = getattr(sys, "argv", None) or [""]
    first = argv[0]
    if first in ("-c", ""):
        return "python -c" if first == "-c" else "python"
    if first == "-m" and len(argv) > 1:
        return "python -m " + argv[1]
    return os.path.basename(first)


class _PostImportLoader:
    """Loader that runs the real one, then a callback on the finished module."""

    def __init__(self, loader, callback):
        self._loader = loader
        self._callback = callback

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            self._callback(module)
        except Exception as e:
            if _live:
                _live.log(1, "cannot hook %s: %s: %s" % (module.__name__, type(e).__name__, e))

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _PostImportFinder:
    """Hooks modules of interest right after they are imported, so torch is never imported by us."""

    def __init__(self, callbacks):
        self._callbacks = dict(callbacks)
        self._busy = set()

    def find_spec(self, fullname, path=None, target=None):
        callback = self._callbacks.get(fullname)
        if callback is None or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        del self._callbacks[fullname]
        spec.loader = _PostImportLoader(spec.loader, callback)
        return spec


class _Windows:
    """torch.profiler driven by the session's steps; every finished window goes to the viewer."""

    def __init__(self, live, torch, capture):
        import torch.profiler as tp

        self.live = live
        sched = capture.get("schedule") or {}
        self.active = max(1, int(sched.get("active", 1)))
        activities = [tp.ProfilerActivity.CPU]
        if capture.get("cuda") and torch.cuda.is_available():
            activities.append(tp.ProfilerActivity.CUDA)
        self.dir = os.environ.get("KINETOSCOPE_WINDOW_DIR") or ""
        self.remove_after = 1 if self.dir else 0
        if not self.dir:
            import tempfile

            self.dir = tempfile.mkdtemp(prefix="kinetoscope-windows-")
        self.shapes = bool(capture.get("shapes"))
        self.memory = bool(capture.get("memory"))
        self.stack = bool(capture.get("stack"))
        self.kineto = bool(getattr(torch.autograd.profiler, "kineto_available", lambda: True)())
        self.anchors = []
        self.window_start = 0
        self.window_end = 0
        self.running = False
        outer = self

        class WindowProfile(tp.profile):
            # The action table binds these at construction, so overriding them here is what hooks
            # the start and end of each window.
            def start_trace(self):
                super().start_trace()
                outer.window_start = outer.live.now()

            def stop_trace(self):
                super().stop_trace()
                outer.window_end = outer.live.now()

        self.prof = WindowProfile(
            activities=activities,
            schedule=tp.schedule(
                wait=int(sched.get("wait", 0)),
                warmup=int(sched.get("warmup", 0)),
                active=self.active,
                repeat=int(sched.get("repeat", 0)),
                skip_first=int(sched.get("skip_first", 0)),
            ),
            on_trace_ready=self._ready,
            record_shapes=bool(capture.get("shapes")),
            profile_memory=bool(capture.get("memory")),
            with_stack=bool(capture.get("stack")),
        )
        self.prof.start()
        self.running = True
        self._anchor()

    def _anchor(self):
        label = getattr(self.prof, "step_num", 0)
        rec = getattr(self.prof, "step_rec_fn", None)
        name = getattr(rec, "name", "") if rec is not None else ""
        if isinstance(name, str) and name.startswith("ProfilerStep#"):
            try:
                label = int(name[len("ProfilerStep#"):])
            except ValueError:
                pass
        self.anchors.append((label, self.live.now()))

    def advance(self):
        if not self.running:
            return
        self.prof.step()
        self._anchor()

    def _ready(self, prof):
        last = prof.step_num - 1
        first = max(0, last - self.active + 1)
        path = os.path.join(self.dir, "window-%d-%d.pt.trace.json" % (os.getpid(), prof.step_num))
        if self.kineto:
            prof.export_chrome_trace(path)
        else:
            self._export_legacy(prof, path)
        flat = [v for pair in self.anchors for v in pair]
        arr = (ctypes.c_int64 * len(flat))(*flat)
        rc = self.live.lib.ks_stream_window(
            path.encode(), first, last, self.window_start, self.window_end, arr, len(self.anchors), self.remove_after
        )
        if rc != 0:
            self.live.log(2, "cannot hand window %s to the viewer: %s" % (path, self.live.error()))
        # Only anchors of the coming windows matter from now on.
        self.anchors = self.anchors[-2:]

    def _export_legacy(self, prof, path):
        # torch built without Kineto (Debian's 1.13) exports names and times only; its events do
        # hold shapes, stacks and each op's memory, so they are written as the op's args.
        pid = os.getpid()
        with open(path, "w") as f:
            f.write('{"schemaVersion": 1, "traceEvents": [\n')
            first = True
            for evt in prof.events():
                name = evt.trace_name
                if name is None:
                    continue
                args = {}
                if self.shapes and any(evt.input_shapes or []):
                    args["Input Dims"] = evt.input_shapes
                if self.memory and (evt.cpu_memory_usage or evt.self_cpu_memory_usage):
                    args["CPU Memory Usage"] = evt.cpu_memory_usage
                    args["Self CPU Memory Usage"] = evt.self_cpu_memory_usage
                if self.stack and evt.stack:
                    args["Call stack"] = ";".join(evt.stack)
                e = {
                    "ph": "X",
                    "cat": "cpu_op" if "::" in name else "user_annotation",
                    "name": name,
                    "pid": pid,
                    "tid": evt.thread,
                    "ts": evt.time_range.start,
                    "dur": evt.time_range.elapsed_us(),
                    "args": args,
                }
                f.write(("" if first else ",\n") + json.dumps(e))
                first = False
            f.write("\n]}\n")

    def stop(self, why=None):
        if not self.running:
            return
        self.running = False
        if why:
            self.live.log(1, why)
        try:
            self.prof.stop()
        except Exception as e:
            self.live.log(1, "stopping torch.profiler failed: %s: %s" % (type(e).__name__, e))


class _Live:
    def __init__(self, lib, capture):
        self.lib = lib
        self.capture = capture
        self.mode = capture.get("mode", "native")
        self.global_step = 0
        self.global_hook = False
        self.windows = None
        self.torch = None
        self.nvtx = None
        self.observer = None
        self.stack_hook = None
        # The observer records module calls itself (with_stack, Python 3.11+): no hooks' ranges.
        self.native_modules = False
        self.observer_options = None
        self.tagger = None
        self.optimizers_seen = False
        self.names = {}
        self.tls = threading.local()
        self.in_child = False

    # --- plumbing ---------------------------------------------------------------------------
    def now(self):
        return self.lib.ks_now_ns()

    def error(self):
        e = self.lib.ks_last_error()
        return e.decode("utf-8", "replace") if e else ""

    def log(self, level, text):
        self.lib.ks_stream_log(level, text.encode("utf-8", "replace"))

    def info(self, key, value):
        self.lib.ks_stream_info(key.encode(), str(value).encode("utf-8", "replace"))

    def intern(self, name):
        nid = self.names.get(name)
        if nid is None:
            nid = self.names[name] = self.lib.ks_intern(name.encode("utf-8", "replace"))
        return nid

    # --- steps ------------------------------------------------------------------------------
    def step(self, requester):
        self._close_module_ranges()
        n = self.lib.ks_stream_step(requester.encode())
        if n > self.global_step:
            self.global_step = n
            self._tag_state()
            if self.windows is not None:
                try:
                    self.windows.advance()
                except Exception as e:
                    self.windows.stop("torch.profiler windows stopped: %s: %s" % (type(e).__name__, e))

    def on_optimizer(self, opt):
        self.lib.ks_stream_step_origin()
        if self.tagger is not None:
            self.tagger.add_optimizer(opt)
            self._tag_state()
        if not self.optimizers_seen:
            self.optimizers_seen = True
            if self.mode == "windows" and self.windows is None and not self.in_child:
                try:
                    self.windows = _Windows(self, self.torch or sys.modules.get("torch"), self.capture)
                    self.log(0, "torch.profiler windows: schedule %s" % json.dumps(self.capture.get("schedule")))
                except Exception as e:
                    self.log(2, "cannot start torch.profiler windows: %s: %s" % (type(e).__name__, e))
        if not self.global_hook:
            self._wrap_step(type(opt))

    def _own_step_range(self, torch_ranged):
        """Whether the bootstrap records the Optimizer.step range itself. torch wraps every
        optimizer's step() in record_function("Optimizer.step#<class>.step") (1.8+, the step's
        "hooked" wrapper; 2.x runs the global step hooks inside it), and the observer records that
        range: a second one of ours nested in it doubled every step. Ours is only for when no
        observer records torch's (not loaded) or torch has no such wrapper."""
        return not (torch_ranged and self.observer is not None)

    def _wrap_step(self, cls):
        orig = cls.step
        if getattr(orig, "_kinetoscope", False):
            return
        live = self
        ranges = self.mode == "native" and self.capture.get("cpu", True)
        # torch 1.x puts its profiling wrapper on the class in Optimizer.__init__, before this.
        torch_ranged = bool(getattr(orig, "hooked", False))
        name = self.intern("Optimizer.step#%s.step" % cls.__name__)

        @functools.wraps(orig)
        def step(self, *args, **kwargs):
            own = ranges and live._own_step_range(torch_ranged)
            if own:
                live.lib.ks_range_push(name)
            try:
                result = orig(self, *args, **kwargs)
            finally:
                if own:
                    live.lib.ks_range_pop()
            live.step("Optimizer#%x" % id(self))
            return result

        step._kinetoscope = True
        cls.step = step

    # --- torch hooks ------------------------------------------------------------------------
    def hook_optimizer_module(self, module):
        Optimizer = module.Optimizer
        orig_init = Optimizer.__init__
        live = self

        @functools.wraps(orig_init)
        def __init__(self, *args, **kwargs):
            orig_init(self, *args, **kwargs)
            live.on_optimizer(self)

        Optimizer.__init__ = __init__
        post = getattr(module, "register_optimizer_step_post_hook", None)
        if post is not None:
            ranges = self.mode == "native" and self.capture.get("cpu", True)
            pre = getattr(module, "register_optimizer_step_pre_hook", None)
            # The global hooks run inside torch's record_function of the step: the range is ours
            # only while no observer records that one (the observer is loaded once, with torch, so
            # the pre and post hooks of one step decide alike).
            hooked = ranges and pre is not None

            def before(opt, args, kwargs):
                if hooked and self._own_step_range(True):
                    self.lib.ks_range_push(self.intern("Optimizer.step#%s.step" % type(opt).__name__))

            def after(opt, args, kwargs):
                if hooked and self._own_step_range(True):
                    self.lib.ks_range_pop()
                self.step("Optimizer#%x" % id(opt))

            if hooked:
                pre(before)
            post(after)
            self.global_hook = True

    def hook_profiler_module(self, module):
        profile = module.profile
        orig_step = profile.step
        orig_start = profile.start
        live = self

        @functools.wraps(orig_step)
        def step(self, *args, **kwargs):
            result = orig_step(self, *args, **kwargs)
            if live.windows is None or self is not live.windows.prof:
                live.step("ProfilerStep#%x" % id(self))
            return result

        @functools.wraps(orig_start)
        def start(self, *args, **kwargs):
            w = live.windows
            if w is not None and w.running and self is not w.prof:
                w.stop("the script runs torch.profiler itself: Kinetoscope's profiler windows stop here")
            live.lib.ks_stream_step_origin()
            return orig_start(self, *args, **kwargs)

        profile.step = step
        profile.start = start

    def hook_autograd_profiler_module(self, module):
        """torch's own profiler needs the thread's profiler slot, where the observer's memory
        reporter sits: native memory capture hands it over when the script starts one."""
        profile = getattr(module, "profile", None)
        orig = getattr(profile, "_start_trace", None)
        if orig is None:
            return
        live = self

        @functools.wraps(orig)
        def _start_trace(self, *args, **kwargs):
            live.yield_memory()
            return orig(self, *args, **kwargs)

        profile._start_trace = _start_trace

    def yield_memory(self):
        options = self.observer_options
        if self.observer is None or not options or not options.get("profile_memory"):
            return
        options = dict(options, profile_memory=False)
        self.observer.kstorch_enable(self.torchbuild.options_text(options))
        self.observer_options = options
        self.tagger = None
        self.log(1, "the script runs torch's profiler itself: allocations are no longer recorded natively "
                    "(torch's profiler needs the thread's profiler slot)")

    def hook_module_module(self, module):
        if self.mode != "native" or not self.capture.get("cpu", True):
            return
        pre = getattr(module, "register_module_forward_pre_hook", None)
        post = getattr(module, "register_module_forward_hook", None)
        if pre is None or post is None:
            return
        live = self
        # Named as the running torch's Python tracer names module calls: torch 1.x by class
        # ("nn.Module: Linear"), torch 2.x by instance ("nn.Module: Linear_0", in call order).
        torch = sys.modules.get("torch")
        try:
            by_instance = int(str(getattr(torch, "__version__", "2")).split(".")[0]) >= 2
        except ValueError:
            by_instance = True
        instance_names = {}
        instances = {}

        def range_name(mod):
            cls = type(mod)
            if not by_instance:
                return "nn.Module: " + cls.__name__
            name = instance_names.get(id(mod))
            if name is None:
                n = instances.get(cls, 0)
                instances[cls] = n + 1
                name = instance_names[id(mod)] = "nn.Module: %s_%d" % (cls.__name__, n)
            return name

        def before(mod, inputs):
            if live.native_modules:
                return
            stack = getattr(live.tls, "stack", None)
            if stack is None:
                stack = live.tls.stack = []
                live.lib.ks_set_thread_name(threading.current_thread().name.encode("utf-8", "replace"))
            # Category python_function, as torch's Python tracer records module calls.
            live.lib.ks_python_push(live.intern(range_name(mod)))
            stack.append(id(mod))

        def after(mod, inputs, output):
            stack = getattr(live.tls, "stack", None)
            if not stack or id(mod) not in stack:
                return
            # Ranges left open by an exception inside a child module end with their parent.
            while stack:
                live.lib.ks_range_pop()
                if stack.pop() == id(mod):
                    break

        pre(before)
        post(after)

    def _close_module_ranges(self):
        stack = getattr(self.tls, "stack", None)
        while stack:
            stack.pop()
            self.lib.ks_range_pop()

    def hook_torch(self, torch):
        self.torch = torch
        version = getattr(torch, "__version__", "?")
        self.info("torch", version)
        cuda = False
        try:
            cuda = bool(torch.cuda.is_available())
        except Exception:
            pass
        self.info("cuda", "available" if cuda else "not available")
        how = "global optimizer hook" if self.global_hook else "Optimizer.step wrapped (torch < 2)"
        self.log(0, "torch %s: steps from %s; mode %s" % (version, how, self.mode))
        if self.capture.get("cuda") and not cuda:
            self.log(1, "CUDA capture requested, but this torch sees no CUDA device")
        if self.mode == "native":
            self._start_observer()
            if self.capture.get("stack") and self.observer is None:
                self.log(1, "stack capture in native mode needs libkinetoscope_torch.so; skipped")
            if self.capture.get("memory") and self.observer is None:
                self.log(1, "memory capture in native mode needs libkinetoscope_torch.so; skipped")
            elif self.capture.get("memory"):
                self._start_tagger(torch)
            if self.capture.get("cuda") and cuda:
                try:
                    from torch.autograd.profiler import emit_nvtx

                    self.nvtx = emit_nvtx(record_shapes=bool(self.capture.get("shapes")))
                    self.nvtx.__enter__()
                    self.log(0, "autograd ops are emitted as NVTX ranges")
                except Exception as e:
                    self.nvtx = None
                    self.log(1, "emit_nvtx is not available: %s: %s" % (type(e).__name__, e))

    def _observer_paths(self):
        """Prebuilt libraries, each with whether it was named explicitly (then the only one)."""
        env = os.environ.get("KINETOSCOPE_TORCH_LIB")
        if env:
            yield env, True
            return
        lib = os.environ.get("KINETOSCOPE_LIB")
        if lib and os.sep in lib:
            real = os.path.realpath(lib)
            yield os.path.join(os.path.dirname(real), "libkinetoscope_torch.so"), False
            # The build tree: core/capi/libkinetoscope.so.1 beside core/torch/.
            yield os.path.join(os.path.dirname(os.path.dirname(real)), "torch", "libkinetoscope_torch.so"), False

    def _observer_candidates(self, errors):
        """Libraries built for the running torch, each with the kstorch ABI it must report: a
        prebuilt one whose sidecar matches it, else one built on first use (the package's
        torchbuild.py, loaded from its file: the package stays out of the program's imports)."""
        import importlib.util

        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(os.path.dirname(here), "kinetoscope", "torchbuild.py")
        try:
            spec = importlib.util.spec_from_file_location("_kinetoscope_torchbuild", path)
            tb = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(tb)
            running = tb.running_torch()
            self.torchbuild = tb
        except Exception as e:
            errors.append("%s: %s: %s" % (path, type(e).__name__, e))
            return
        if tb.build_mode() != "force":
            for candidate, explicit in self._observer_paths():
                if not explicit and not os.path.exists(candidate):
                    continue
                try:
                    why = tb.mismatch(tb.read_sidecar(candidate), running, tb.KSTORCH_ABI)
                except ValueError as e:
                    sidecar = os.path.join(os.path.dirname(candidate), tb.SIDECAR)
                    why = None if explicit and not os.path.exists(sidecar) else str(e)
                if why is None:
                    yield candidate, tb.KSTORCH_ABI
                else:
                    errors.append("%s: %s" % (candidate, why))
        kslib = os.environ.get("KINETOSCOPE_LIB") or getattr(self.lib, "_name", None)
        built, why = tb.ensure(running, tb.KSTORCH_ABI, kslib)
        if built is not None:
            yield built, tb.KSTORCH_ABI
        else:
            errors.append(why)

    def _start_observer(self):
        """Loads the torch observer so that aten ops stream natively; the program is unchanged."""
        if not self.capture.get("cpu", True):
            return
        options = {"record_shapes": bool(self.capture.get("shapes")),
                   "profile_memory": bool(self.capture.get("memory"))}
        if self.capture.get("shape_sampling"):
            options["shape_sampling"] = int(self.capture["shape_sampling"])
        stacks = None
        if self.capture.get("stack"):
            stacks = self._load_package_file("pystacks")
            if stacks is None:
                self.log(1, "stack capture skipped: pystacks.py not loaded")
            else:
                options["with_stack"] = True
                options["stack_prefixes"] = stacks.stack_prefixes()
        errors = []
        for path, abi in self._observer_candidates(errors):
            try:
                obs = ctypes.CDLL(path)
            except OSError as e:
                errors.append("%s: %s" % (path, e))
                continue
            obs.kstorch_abi_version.restype = ctypes.c_int
            if obs.kstorch_abi_version() != abi:
                errors.append("%s: ABI %d, expected %d" % (path, obs.kstorch_abi_version(), abi))
                continue
            obs.kstorch_enable.argtypes = [ctypes.c_char_p]
            obs.kstorch_enable.restype = ctypes.c_int
            obs.kstorch_last_error.restype = ctypes.c_char_p
            rc = obs.kstorch_enable(self.torchbuild.options_text(options))
            message = obs.kstorch_last_error().decode("utf-8", "replace")
            if rc < 0:
                self.log(1, "torch observer: %s" % message)
                return
            if message:
                self.log(1, "torch observer: %s" % message)
            self.observer = obs
            # kinetoscope.profile() in the same program keeps these on when it ends.
            self.observer_options = options
            what = " (shapes)" if options["record_shapes"] else ""
            if options.get("with_stack"):
                obs.kstorch_stacks_enabled.restype = ctypes.c_int
                stacks_mode = obs.kstorch_stacks_enabled()
                self.native_modules = stacks_mode == 2
                if stacks_mode:
                    # Threads started from now on get their stacks too, as under kinetoscope.profile.
                    self.stack_hook = stacks.ThreadHook(stacks.gil_library(path))
                    self.stack_hook.set(True)
                    what += " (Python stacks)"
                else:
                    self.log(1, "torch observer: Python stacks are not recorded in this interpreter")
            self.log(0, "aten ops recorded by %s%s" % (path, what))
            return
        self.log(1, "torch observer not loaded, only module and step ranges: %s" % "; ".join(errors))

    def _load_package_file(self, name):
        """The package's module name.py, loaded from its file (the package stays out of the
        program's imports), or None after logging why."""
        import importlib.util

        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(os.path.dirname(here), "kinetoscope", name + ".py")
        try:
            spec = importlib.util.spec_from_file_location("_kinetoscope_" + name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        except Exception as e:
            self.log(1, "%s: %s: %s" % (path, type(e).__name__, e))
            return None

    def _start_tagger(self, torch):
        """Marks parameters, gradients, optimizer state and inputs for the memory categories (rule
        R1, docs/memory-categories.md) with the package's memorytags.py, loaded from its file: the
        package itself stays out of the program's imports."""
        import importlib.util

        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(os.path.dirname(here), "kinetoscope", "memorytags.py")
        try:
            spec = importlib.util.spec_from_file_location("_kinetoscope_memorytags", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            lib = self.lib
            name = self.intern(module.MARK_NAME)

            class Sink:
                recording = staticmethod(lib.ks_recording)

                @staticmethod
                def payload(text):
                    return lib.ks_payload(text.encode("utf-8"))

                @staticmethod
                def mark(payload):
                    lib.ks_mark_payload(name, payload)

            self.tagger = module.MemoryTagger(Sink(), torch)
            self.tagger.attach()
        except Exception as e:
            self.tagger = None
            self.log(1, "memory categories: tensors are not marked (%s: %s: %s)" % (path, type(e).__name__, e))

    def _tag_state(self):
        if self.tagger is None:
            return
        try:
            self.tagger.tag_state()
        except Exception as e:
            self.tagger = None
            self.log(1, "memory categories: marking stopped: %s: %s" % (type(e).__name__, e))

    # --- process life -----------------------------------------------------------------------
    def after_fork(self):
        self.in_child = True
        if self.windows is not None:
            # The profiler's state belongs to the parent.
            self.windows.running = False
            self.windows = None
        self.tls = threading.local()
        if self.lib.ks_stream_after_fork() != 0:
            sys.stderr.write("kinetoscope: %s\n" % self.error())

    def finish(self):
        self._tag_state()
        if self.windows is not None:
            self.windows.stop()
        if self.nvtx is not None:
            try:
                self.nvtx.__exit__(None, None, None)
            except Exception:
                pass
        self.lib.ks_stream_stop()


def start(chained=None):
    global _live
    import importlib.util

    endpoint = os.environ["KINETOSCOPE_ENDPOINT"]
    capture = json.loads(os.environ.get("KINETOSCOPE_CAPTURE") or "{}")
    libpath = os.environ.get("KINETOSCOPE_LIB") or "libkinetoscope.so.1"
    lib = _declare(ctypes.CDLL(libpath))
    options = dict(capture)
    options["program"] = _program_name()
    if lib.ks_stream_to(endpoint.encode(), json.dumps(options).encode()) != 0:
        raise RuntimeError(lib.ks_last_error().decode("utf-8", "replace"))
    live = _live = _Live(lib, capture)
    live.info("python", sys.version.split()[0] + " " + sys.executable)
    if chained:
        live.info("sitecustomize", chained)
    live.info("argv", " ".join(getattr(sys, "argv", [])))

    hooks = {
        "torch": live.hook_torch,
        "torch.optim.optimizer": live.hook_optimizer_module,
        "torch.profiler.profiler": live.hook_profiler_module,
        "torch.nn.modules.module": live.hook_module_module,
        "torch.autograd.profiler": live.hook_autograd_profiler_module,
    }
    # Modules a chained sitecustomize already imported are hooked now, the rest when imported
    # (children before torch itself, which imports them).
    for name in ("torch.optim.optimizer", "torch.profiler.profiler", "torch.nn.modules.module",
                 "torch.autograd.profiler", "torch"):
        if name in sys.modules:
            hooks.pop(name)(sys.modules[name])
    # Before the finder goes in: a find_spec through it would use up the hook on a spec nobody loads.
    try:
        has_torch = "torch" in sys.modules or importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        has_torch = False
    if not has_torch:
        live.log(
            1,
            "torch is not installed for %s: no steps will arrive (the console, CPU and memory are still shown)"
            % sys.executable,
        )
    sys.meta_path.insert(0, _PostImportFinder(hooks))


    previous_hook = sys.excepthook

    def excepthook(kind, value, tb):
        try:
            live.log(2, "the script raised %s: %s" % (kind.__name__, value))
        except Exception:
            pass
        previous_hook(kind, value, tb)

    sys.excepthook = excepthook
    atexit.register(live.finish)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=live.after_fork)
    # os._exit runs no atexit handler (multiprocessing's forked workers end with it): without
    # this, what the process recorded since the sender's last drain (about 10 ms of events, and
    # ranges still open) would never leave it. The stream's stop drains and says goodbye; the
    # viewer keeps ranges still open as slices ending at the thread's last time.
    real_exit = os._exit

    @functools.wraps(real_exit)
    def _exit(status):
        try:
            live.finish()
        except BaseException:
            pass
        real_exit(status)

    os._exit = _exit
