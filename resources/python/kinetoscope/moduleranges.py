"""nn.Module forwards as torch's Python tracer shows them (with_modules / with_stack): a range of
category python_function around each module call, nested as the calls nest, on the calling thread,
named as the running torch names it: torch 1.x by class ("nn.Module: Linear"), torch 2.x by
instance ("nn.Module: Linear_0", n counting the instances of that class in call order).

With with_stack the operators' Python stacks name each module call as torch 1.13's stacks do,
"nn.Module: <class name>_<n>" (n counts the instances of that class in call order), in place of
Module._call_impl's frame.
"""
import threading

from ._lib import lib
from . import torchobserver as _observer
from .ranges import intern


def _torch_major():
    import torch
    try:
        return int(str(torch.__version__).split(".")[0])
    except ValueError:
        return 2


class ModuleRanges:
    def __init__(self, name_frames=False):
        self._hooks = []
        self._local = threading.local()
        self._names = {}
        self._name_frames = name_frames
        self._frame_names = {}
        self._instances = {}
        self._by_instance = False

    def start(self):
        if self._hooks:
            return
        from torch.nn.modules import module as m
        self._by_instance = _torch_major() >= 2
        self._hooks = [m.register_module_forward_pre_hook(self._before),
                       m.register_module_forward_hook(self._after)]

    def stop(self):
        for h in self._hooks:
            h.remove()
        self._hooks = []
        # Ranges still open (stop() inside a forward) end here.
        stack = getattr(self._local, "stack", None)
        while stack:
            stack.pop()
            lib.ks_range_pop()

    def _instance_name(self, module, cls):
        name = self._frame_names.get(id(module))
        if name is None:
            n = self._instances.get(cls, 0)
            self._instances[cls] = n + 1
            name = self._frame_names[id(module)] = f"nn.Module: {cls.__name__}_{n}".encode()
        return name

    def _before(self, module, _inputs):
        cls = type(module)
        if self._by_instance:
            frame_name = self._instance_name(module, cls)
            name = self._names.get(frame_name)
            if name is None:
                name = self._names[frame_name] = intern(frame_name.decode())
        else:
            frame_name = None
            name = self._names.get(cls)
            if name is None:
                name = self._names[cls] = intern("nn.Module: " + cls.__name__)
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        lib.ks_python_push(name)
        stack.append(id(module))
        if self._name_frames:
            _observer.name_module_frame(frame_name or self._instance_name(module, cls))

    def _after(self, module, _inputs, _output):
        stack = getattr(self._local, "stack", None)
        if not stack or id(module) not in stack:
            return
        # Ranges left open by an exception inside a child module end with their parent.
        while stack:
            lib.ks_range_pop()
            if stack.pop() == id(module):
                break
