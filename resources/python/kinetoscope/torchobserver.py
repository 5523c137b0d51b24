"""Loads libkinetoscope_torch.so (core/torch), the observer that records torch's operators natively.

Several users may want the observer at once (the live bootstrap for the whole run, a profile() for
its windows); each acquire() returns a token, and the observer runs with the union of what the
holders asked for until the last one releases it.
"""
import ctypes
import os
import sys
import threading

from . import _lib, pystacks, torchbuild

ABI_VERSION = torchbuild.KSTORCH_ABI
_lock = threading.Lock()
_obs = None
# The same library through ctypes.PyDLL, for the with_stack calls made from Python hooks on hot
# paths: they keep the GIL instead of releasing and taking it back.
_obs_gil = None
_load_error = None
path = None  # the library loaded
_holders = {}
_next_token = 1


def _candidates():
    """Prebuilt libraries to try, each with whether it was named explicitly. KINETOSCOPE_TORCH_LIB,
    when set, is the only one: the one next to libkinetoscope.so.1 may be built for another torch."""
    env = os.environ.get("KINETOSCOPE_TORCH_LIB")
    if env:
        yield env, True
        return
    here = getattr(_lib, "path", None)
    if here and os.sep in here:
        yield os.path.join(os.path.dirname(os.path.realpath(here)), torchbuild.LIBRARY), False
        yield os.path.join(os.path.dirname(here), torchbuild.LIBRARY), False
        # The build tree: core/capi/libkinetoscope.so.1 and core/torch/libkinetoscope_torch.so.
        yield os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(here))), "torch",
                           torchbuild.LIBRARY), False


def _prebuilt_mismatch(path, explicit, running):
    """Why the prebuilt library at path must not be loaded into this process, or None. Read from
    its sidecar before loading: loading a library built for another torch would map a second
    libtorch. A library named by KINETOSCOPE_TORCH_LIB without a sidecar is the user's choice."""
    try:
        sidecar = torchbuild.read_sidecar(path)
    except ValueError as e:
        return None if explicit and not os.path.exists(
            os.path.join(os.path.dirname(path), torchbuild.SIDECAR)) else str(e)
    return torchbuild.mismatch(sidecar, running, ABI_VERSION)


def _open(path):
    """(library, None) or (None, why)."""
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        return None, f"{path}: {e}"
    try:
        lib.kstorch_abi_version.restype = ctypes.c_int
        lib.kstorch_last_error.restype = ctypes.c_char_p
        lib.kstorch_enable.argtypes = [ctypes.c_char_p]
        lib.kstorch_enable.restype = ctypes.c_int
        lib.kstorch_disable.restype = ctypes.c_int
        lib.kstorch_enabled.restype = ctypes.c_int
        lib.kstorch_stacks_enabled.restype = ctypes.c_int
    except AttributeError as e:
        # Some other library under the observer's name (a foreign or damaged file): a reason, not
        # an exception out of the user's profile().
        return None, f"not the torch observer: {e}"
    if lib.kstorch_abi_version() != ABI_VERSION:
        return None, f"{path}: ABI {lib.kstorch_abi_version()}, expected {ABI_VERSION}"
    return lib, None


def load():
    """The observer library, or None (why: load_error()). Needs torch imported first: the observer
    must join the libtorch the program uses. A prebuilt library is loaded when its sidecar matches
    the running torch; otherwise one is built for it on first use (kinetoscope/torchbuild.py)."""
    global _load_error
    if _obs is not None:
        return _obs
    if "torch" not in sys.modules:
        _load_error = "torch is not imported"
        return None
    if _load_error is not None and _load_error != "torch is not imported":
        # Tried and failed in this process: not again at every profile (nor its one-line message).
        return None
    try:
        running = torchbuild.running_torch()
    except Exception as e:
        _load_error = f"cannot tell which torch runs: {type(e).__name__}: {e}"
        return None
    errors = []
    found = []
    if torchbuild.build_mode() != "force":
        found = [c for c in _candidates() if c[1] or os.path.exists(c[0])]
    for candidate, explicit in found:
        why = _prebuilt_mismatch(candidate, explicit, running)
        if why is None:
            lib, why = _open(candidate)
            if lib is not None:
                return _loaded(lib, candidate)
            errors.append(why)
        else:
            errors.append(f"{candidate}: {why}")
    built, why = torchbuild.ensure(running, ABI_VERSION, getattr(_lib, "path", None))
    if built is not None:
        lib, why = _open(built)
        if lib is not None:
            return _loaded(lib, built)
    errors.append(why)
    _load_error = "; ".join(errors)
    return None


def _loaded(lib, where):
    global _obs, _obs_gil, path
    global _thread_hook
    gil = pystacks.gil_library(lib._name)
    _obs, _obs_gil, path = lib, gil, where
    _thread_hook = pystacks.ThreadHook(gil)
    return lib


def load_error():
    return _load_error


def _live_options():
    """The options of a live session (the bootstrap's _kinetoscope_live), which holds the observer
    for the whole run."""
    live = getattr(sys.modules.get("_kinetoscope_live"), "_live", None)
    return getattr(live, "observer_options", None)


stack_prefixes = pystacks.stack_prefixes
_thread_hook = None  # pystacks.ThreadHook, once the library is loaded


def _set_thread_hook(on):
    if _thread_hook is not None:
        _thread_hook.set(on)


def name_module_frame(name):
    """name: bytes. Names the Module._call_impl frame that called the caller (a forward pre-hook) in the
    operators' Python stacks, as torch's tracer does ("nn.Module: Linear_0"). Must be called from
    the hook itself: the frame named is the third innermost (this function, the hook,
    _call_impl)."""
    if _obs_gil is not None:
        _obs_gil.kstorch_stack_module(name, 2)


def stacks_active():
    return _obs is not None and bool(_obs.kstorch_stacks_enabled())


def stacks_record_modules():
    """The library names module calls in stacks and records them as python_function ranges itself
    (Python 3.11+), so that moduleranges' hooks are not needed."""
    return _obs is not None and _obs.kstorch_stacks_enabled() == 2


def _apply():
    """Enables the observer with the union of the holders' options (or disables it)."""
    holders = list(_holders.values())
    live = _live_options()
    if live is not None:
        holders.append(live)
    if not holders:
        _obs.kstorch_disable()
        _set_thread_hook(False)
        return None
    merged = {"record_shapes": False, "profile_memory": False, "shape_sampling": None, "with_stack": False}
    for o in holders:
        merged["record_shapes"] |= bool(o.get("record_shapes"))
        merged["profile_memory"] |= bool(o.get("profile_memory"))
        merged["with_stack"] |= bool(o.get("with_stack"))
        every = o.get("shape_sampling")
        if every:
            merged["shape_sampling"] = min(every, merged["shape_sampling"] or every)
    for key in ("include", "exclude"):
        # A filter only when every holder gave the same one: a holder without one wants every op.
        values = [tuple(o.get(key) or ()) for o in holders]
        if values and all(v == values[0] for v in values) and values[0]:
            merged[key] = list(values[0])
    if not merged["shape_sampling"]:
        del merged["shape_sampling"]
    if merged["with_stack"]:
        merged["stack_prefixes"] = stack_prefixes()
    rc = _obs.kstorch_enable(torchbuild.options_text(merged))
    message = _obs.kstorch_last_error().decode("utf-8", "replace")
    if rc < 0:
        raise RuntimeError("kinetoscope torch observer: " + message)
    _set_thread_hook(merged["with_stack"] and stacks_active())
    return message or None


def acquire(options):
    """Starts (or widens) the observer. Returns (token, warning) or (None, reason) when the observer
    is not available."""
    global _next_token
    with _lock:
        if load() is None:
            return None, _load_error
        token = _next_token
        _next_token += 1
        _holders[token] = dict(options)
        try:
            return token, _apply()
        except Exception:
            del _holders[token]
            raise


def release(token):
    if token is None:
        return
    with _lock:
        if _holders.pop(token, None) is not None and _obs is not None:
            _apply()


def active():
    return _obs is not None and bool(_obs.kstorch_enabled())
