"""Memory categories from the program's own tensors (docs/memory-categories.md, rule R1).

torch's MemoryProfile (torch >= 2.1) sorts memory into PARAMETER, OPTIMIZER_STATE, INPUT, ... from
its event tree; a trace cannot say which block is a parameter. While a profile records memory, this
module looks at the live objects instead and records what it knows as "[memory category]" instants
(one per category and device, with the storages' addresses and sizes):

- PARAMETER: the parameters of every nn.Module, GRADIENT: their .grad, OPTIMIZER_STATE: the tensors
  in every optimizer's state; at the start and end of each window and at every step (parameters
  and gradients may move or be replaced between steps);
- INPUT: the tensors given to a top-level module call (a module called outside any other module's
  forward), as the call starts; tensors that already depend on autograd (they have a grad_fn) and
  parameters are not inputs.

The memory timeline gives a block the category of a mark made at its address while it was alive.
Modules and optimizers are found once per window start among the objects the garbage collector
tracks, and by the module hook for modules created later.

The live bootstrap (resources/python/bootstrap/_kinetoscope_live.py) loads this file on its own,
without the package, and hands MemoryTagger a sink of its own: so nothing here may import the
package at module level.
"""
import gc
import json
import threading
import warnings
import weakref

MARK_NAME = "[memory category]"
_DEVICE_TYPES = {"cpu": 0, "cuda": 1, "xpu": 12, "mps": 13, "hpu": 15, "privateuseone": 19}
_MAX_PAYLOADS = 1024


def _storage(t):
    """(address, bytes, device type, device index) of tensor t's storage, or None."""
    try:
        s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
        addr = s.data_ptr()
        size = s.nbytes() if hasattr(s, "nbytes") else s.size() * t.element_size()
    except Exception:
        return None
    if not addr or size <= 0:
        return None
    dev = t.device
    kind = _DEVICE_TYPES.get(dev.type)
    if kind is None:
        return None
    return addr, int(size), kind, -1 if kind == 0 else (dev.index or 0)


class _PackageSink:
    """Marks through the kinetoscope package's libkinetoscope."""

    def __init__(self):
        from ._lib import lib
        from .ranges import intern
        self._lib = lib
        self._name = intern(MARK_NAME)

    def recording(self):
        return self._lib.ks_recording()

    def payload(self, text):
        return self._lib.ks_payload(text.encode("utf-8"))

    def mark(self, payload):
        self._lib.ks_mark_payload(self._name, payload)


class MemoryTagger:
    """sink: recording(), payload(json text) -> id, mark(id); the package's library by default."""

    def __init__(self, sink=None, torch=None):
        if torch is None:
            import torch
        self._torch = torch
        self._modules = weakref.WeakSet()
        self._optimizers = weakref.WeakSet()
        self._payloads = {}
        self._sink = sink if sink is not None else _PackageSink()
        self._hooks = []
        self._local = threading.local()

    # Window boundaries ---------------------------------------------------------------------------
    def start(self):
        nn, optim = self._torch.nn, self._torch.optim
        # isinstance() on some objects (torch.distributed's deprecated reduce_op) warns.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for o in gc.get_objects():
                if isinstance(o, nn.Module):
                    self._modules.add(o)
                elif isinstance(o, optim.Optimizer):
                    self._optimizers.add(o)
        self.attach()
        self.tag_state()

    def attach(self):
        """Hooks module calls: modules are found, and top-level calls mark their inputs."""
        if not self._hooks:
            m = self._torch.nn.modules.module
            self._hooks = [m.register_module_forward_pre_hook(self._pre_forward),
                           m.register_module_forward_hook(self._post_forward)]

    def add_optimizer(self, optimizer):
        """An optimizer built after start(): its parameters and state are marked from now on."""
        self._optimizers.add(optimizer)

    def stop(self):
        self.tag_state()
        for h in self._hooks:
            h.remove()
        self._hooks = []

    def tag_state(self):
        """Marks the parameters, gradients and optimizer state as they are now."""
        self._local.depth = 0  # a forward that raised never ran its post hook
        groups = {}
        seen = set()

        def add(category, t):
            s = _storage(t)
            if s is None or s[0] in seen:
                return
            seen.add(s[0])
            g = groups.setdefault((category, s[2], s[3]), ([], []))
            g[0].append(s[0])
            g[1].append(s[1])

        params = []
        for mod in list(self._modules):
            for p in mod.parameters(recurse=False):
                params.append(p)
        for p in params:
            add("PARAMETER", p)
        for p in params:
            if p.grad is not None:
                add("GRADIENT", p.grad)
        for opt in list(self._optimizers):
            for group in opt.param_groups:
                for p in group["params"]:
                    add("PARAMETER", p)
                    if p.grad is not None:
                        add("GRADIENT", p.grad)
            for state in opt.state.values():
                for v in (state.values() if isinstance(state, dict) else ()):
                    if self._torch.is_tensor(v):
                        add("OPTIMIZER_STATE", v)
        self._mark(groups)

    # Inputs --------------------------------------------------------------------------------------
    def _pre_forward(self, module, args):
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if module not in self._modules:
            self._modules.add(module)
        if depth:
            return None
        groups = {}
        seen = set()
        for t in self._tensors(args):
            if t.grad_fn is not None or isinstance(t, self._torch.nn.Parameter):
                continue
            s = _storage(t)
            if s is None or s[0] in seen:
                continue
            seen.add(s[0])
            g = groups.setdefault(("INPUT", s[2], s[3]), ([], []))
            g[0].append(s[0])
            g[1].append(s[1])
        self._mark(groups)
        return None

    def _post_forward(self, module, args, output):
        self._local.depth = max(0, getattr(self._local, "depth", 1) - 1)
        return None

    def _tensors(self, value, depth=0):
        if self._torch.is_tensor(value):
            yield value
        elif depth < 2 and isinstance(value, (list, tuple)):
            for v in value:
                yield from self._tensors(v, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            for v in value.values():
                yield from self._tensors(v, depth + 1)

    # Recording -----------------------------------------------------------------------------------
    def _mark(self, groups):
        if not groups or not self._sink.recording():
            return
        for (category, kind, index), (addrs, sizes) in sorted(groups.items()):
            text = json.dumps({"Category": category, "Device Type": kind, "Device Id": index,
                               "Addr": addrs, "Bytes": sizes}, separators=(",", ":"))
            payload = self._payloads.get(text)
            if payload is None:
                if len(self._payloads) >= _MAX_PAYLOADS:
                    self._payloads.clear()
                payload = self._sink.payload(text)
                self._payloads[text] = payload
            if payload:
                self._sink.mark(payload)
