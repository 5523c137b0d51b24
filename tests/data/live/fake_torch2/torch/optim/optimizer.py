# torch 2 runs global pre/post hooks around every Optimizer subclass's step().
_pre_hooks = []
_post_hooks = []


def register_optimizer_step_pre_hook(hook):
    _pre_hooks.append(hook)


def register_optimizer_step_post_hook(hook):
    _post_hooks.append(hook)


def _with_hooks(step):
    def wrapper(self, *args, **kwargs):
        for h in _pre_hooks:
            h(self, args, kwargs)
        result = step(self, *args, **kwargs)
        for h in _post_hooks:
            h(self, args, kwargs)
        return result

    return wrapper


class Optimizer:
    def __init__(self, params):
        self.params = params
        self.steps = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_hooks(cls.__dict__["step"])
