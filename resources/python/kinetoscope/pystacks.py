"""Python stacks of the torch observer (with_stack): the frame-name prefixes and the hook that hands
threads started later to the observer. Shared by torchobserver.py and the live bootstrap, which
loads this file by its path (the package stays out of the program's imports): no package imports."""
import ctypes
import os
import sys
import threading


def stack_prefixes():
    """File-name prefixes stripped from Python frames, as torch's python_tracer._prefix_regex()
    computes them: the site and sys.path directories and torch's parent, longest first among
    those that share a start."""
    import site
    raw = list(site.getsitepackages()) + list(sys.path) + [site.getuserbase(), site.getusersitepackages()]
    torch = sys.modules.get("torch")
    if getattr(torch, "__file__", None):
        raw.append(os.path.dirname(os.path.dirname(torch.__file__)))
    return [p + os.sep for p in sorted({os.path.abspath(p) for p in raw if isinstance(p, str)}, reverse=True)]


def gil_library(name):
    """The observer library through ctypes.PyDLL, for the with_stack calls made from Python hooks on
    hot paths: they keep the GIL instead of releasing and taking it back."""
    gil = ctypes.PyDLL(name)
    gil.kstorch_stack_thread.argtypes = [ctypes.py_object]
    gil.kstorch_stack_thread.restype = None
    gil.kstorch_stack_module.argtypes = [ctypes.c_char_p, ctypes.c_int]
    gil.kstorch_stack_module.restype = None
    return gil


class ThreadHook:
    """threading.setprofile hook for threads started while Python stacks are recorded: at a new
    thread's first call the library replaces it with its own profile function on that thread (or
    removes it when no longer needed)."""

    def __init__(self, gil):
        self._gil = gil
        self._previous = None
        self._set = False

    def _hook(self, frame, _event, _arg):
        self._gil.kstorch_stack_thread(frame)

    def set(self, on):
        if on and not self._set:
            self._previous = getattr(threading, "getprofile", lambda: None)()
            threading.setprofile(self._hook)
            self._set = True
        elif not on and self._set:
            threading.setprofile(self._previous)
            self._previous = None
            self._set = False
