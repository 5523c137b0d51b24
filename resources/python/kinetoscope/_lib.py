"""Loads libkinetoscope (the recorder's C ABI) with ctypes and declares its functions."""
import ctypes
import os
import sysconfig

ABI_VERSION = 1


def _candidates():
    env = os.environ.get("KINETOSCOPE_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed: <prefix>/share/kinetoscope/python/kinetoscope -> <prefix>/lib[/<multiarch>]
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    for libdir in (os.path.join(prefix, "lib", multiarch), os.path.join(prefix, "lib")):
        yield os.path.join(libdir, "libkinetoscope.so.1")
    yield "libkinetoscope.so.1"


def _load():
    global path
    errors = []
    for candidate in _candidates():
        try:
            lib = ctypes.CDLL(candidate)
            path = candidate
            return lib
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    raise ImportError("cannot load libkinetoscope.so.1 (set KINETOSCOPE_LIB): " + "; ".join(errors))


path = None  # the library file loaded (torchobserver finds libkinetoscope_torch.so next to it)
lib = _load()

_c = ctypes
_sigs = {
    "ks_abi_version": (_c.c_uint32, []),
    "ks_last_error": (_c.c_char_p, []),
    "ks_string_free": (None, [_c.c_void_p]),
    "ks_profiler_create": (_c.c_void_p, [_c.c_char_p]),
    "ks_profiler_create_scheduled": (_c.c_void_p, [_c.c_char_p, _c.c_void_p, _c.c_void_p]),
    "ks_profiler_events": (_c.c_void_p, [_c.c_void_p]),
    "ks_profiler_key_averages": (_c.c_void_p, [_c.c_void_p, _c.c_int, _c.c_int]),
    "ks_profiler_destroy": (None, [_c.c_void_p]),
    "ks_profiler_start": (_c.c_int, [_c.c_void_p]),
    "ks_profiler_step": (_c.c_int, [_c.c_void_p]),
    "ks_profiler_stop": (_c.c_int, [_c.c_void_p]),
    "ks_profiler_step_num": (_c.c_int64, [_c.c_void_p]),
    "ks_profiler_set_trace_ready": (None, [_c.c_void_p, _c.c_void_p, _c.c_void_p]),
    "ks_profiler_set_window_callback": (None, [_c.c_void_p, _c.c_void_p, _c.c_void_p]),
    "ks_profiler_set_tensorboard_handler": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p, _c.c_int]),
    "ks_profiler_add_metadata": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "ks_profiler_add_metadata_json": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "ks_profiler_status": (_c.c_void_p, [_c.c_void_p]),
    "ks_profiler_export_chrome_trace": (_c.c_int, [_c.c_void_p, _c.c_char_p]),
    "ks_profiler_table": (_c.c_void_p, [_c.c_void_p, _c.c_char_p]),
    "ks_profiler_export_stacks": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "ks_profiler_export_memory_timeline": (_c.c_int, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "ks_intern": (_c.c_uint32, [_c.c_char_p]),
    "ks_range_push": (None, [_c.c_uint32]),
    "ks_range_push_args": (None, [_c.c_uint32, _c.c_char_p]),
    "ks_range_push_stack": (None, [_c.c_uint32, _c.c_char_p, _c.c_char_p]),
    "ks_recording_stacks": (_c.c_int, []),
    "ks_range_pop": (None, []),
    "ks_python_push": (None, [_c.c_uint32]),
    "ks_mark": (None, [_c.c_uint32]),
    "ks_mark_payload": (None, [_c.c_uint32, _c.c_uint64]),
    "ks_payload": (_c.c_uint64, [_c.c_char_p]),
    "ks_counter": (None, [_c.c_uint32, _c.c_double]),
    "ks_record_alloc": (None, [_c.c_void_p, _c.c_int64, _c.c_int, _c.c_int]),
    "ks_record_free": (None, [_c.c_void_p, _c.c_int, _c.c_int]),
    "ks_set_thread_name": (None, [_c.c_char_p]),
    "ks_recording": (_c.c_int, []),
    "ks_now_ns": (_c.c_int64, []),
}
for _name, (_res, _args) in _sigs.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if lib.ks_abi_version() != ABI_VERSION:
    raise ImportError(f"libkinetoscope ABI {lib.ks_abi_version()} does not match the module's {ABI_VERSION}")

TRACE_READY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
SCHEDULE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_void_p)
WINDOW_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


class KinetoscopeError(RuntimeError):
    pass


def check(rc):
    if rc != 0:
        raise KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))


def take_string(ptr):
    """Copies a string the library allocated, then frees it."""
    if not ptr:
        return ""
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.ks_string_free(ptr)
