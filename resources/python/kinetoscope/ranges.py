"""Ranges, marks, counters and allocation records on the calling thread."""
import functools
import json
import os
import sys

from ._lib import lib

_ids = {}

# Set while a profile(with_stack=True) runs, so ranges ask the library whether a window is
# recording (and build their stack) only then.
_with_stack = False
# Frames of this package (range.__enter__, the decorator's wrapper, timeit) are not the caller's.
_own_prefix = os.path.dirname(__file__) + os.sep
_MAX_FRAMES = 128


def _set_with_stack(on):
    global _with_stack
    _with_stack = bool(on)


def python_stack(skip=1):
    """The calling Python stack as Kineto's "Call stack" text: `path/file.py(LINE): function`
    frames, innermost first, joined by ';'. Frames of this package are left out."""
    f = sys._getframe(skip)
    while f is not None and f.f_code.co_filename.startswith(_own_prefix):
        f = f.f_back
    frames = []
    # Walking the frames directly: traceback.extract_stack would also read every source line.
    while f is not None and len(frames) < _MAX_FRAMES:
        code = f.f_code
        frames.append(f"{code.co_filename}({f.f_lineno}): {code.co_name}")
        f = f.f_back
    return ";".join(frames)


def intern(name):
    """Id of a name; cached, so repeated ranges cost one dict lookup."""
    i = _ids.get(name)
    if i is None:
        i = lib.ks_intern(name.encode("utf-8"))
        _ids[name] = i
    return i


def recording():
    return bool(lib.ks_recording())


class range:  # noqa: A001 - mirrors record_function's role under a short name
    """Context manager and decorator recording a named range, like torch's record_function.

    args: optional dict of JSON-serialisable values stored as the range's args (e.g. shapes).
    Under profile(with_stack=True) the range also records the Python stack it was entered from.
    """

    __slots__ = ("_id", "_args")

    def __init__(self, name, args=None):
        self._id = intern(name)
        self._args = json.dumps(args).encode("utf-8") if args else None

    def __enter__(self):
        if _with_stack and lib.ks_recording_stacks():
            lib.ks_range_push_stack(self._id, python_stack(2).encode("utf-8", "replace"), self._args)
        elif self._args is None:
            lib.ks_range_push(self._id)
        else:
            lib.ks_range_push_args(self._id, self._args)
        return self

    def __exit__(self, *exc):
        lib.ks_range_pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*a, **kw):
            with self:
                return fn(*a, **kw)
        return wrapper


def mark(name):
    lib.ks_mark(intern(name))


def counter(name, value):
    lib.ks_counter(intern(name), float(value))


def malloc(address, nbytes, device_type=0, device_index=-1):
    """Records an allocation (device_type: 0 CPU, 1 CUDA, 20 XPU) so the memory view sees it."""
    lib.ks_record_alloc(address, int(nbytes), int(device_type), int(device_index))


def free(address, device_type=0, device_index=-1):
    lib.ks_record_free(address, int(device_type), int(device_index))


def set_thread_name(name):
    lib.ks_set_thread_name(name.encode("utf-8"))
