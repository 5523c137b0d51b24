"""torch.profiler's enums and schedule: ProfilerActivity, ProfilerAction, schedule, supported_activities.

Work without torch. Values from torch (torch.profiler.ProfilerActivity.CUDA, the ProfilerAction a
torch.profiler.schedule returns) are accepted wherever these are, matched by name.
"""
import enum
import sys
from warnings import warn


class ProfilerActivity(enum.Enum):
    """torch's activities. Kinetoscope records CPU, CUDA and XPU; profile.status() says that the
    others (torch 2.x's HPU, MTIA, PrivateUse1) are not recorded."""
    CPU = 0
    CUDA = 1
    XPU = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    # torch 2.x: set by its profiler when device collection stops early; never a schedule's answer.
    DEVICE_STOPPED = 4


def activity_name(a):
    """"cpu", "cuda", "xpu" for our enum, torch's, or a string; the library rejects other names."""
    name = a if isinstance(a, str) else getattr(a, "name", str(a))
    return str(name).split(".")[-1].lower()


def action_value(a):
    """The C ABI's number for a ProfilerAction of ours or torch's (or None for NONE)."""
    if a is None:
        return 0
    name = getattr(a, "name", None)
    if name == "DEVICE_STOPPED":
        raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not "
                         "be returned by a user-provided schedule")
    if name in ProfilerAction.__members__:
        return ProfilerAction[name].value
    if isinstance(a, int) and 0 <= a <= 3:
        return a
    raise TypeError(f"schedule returned {a!r}, not a ProfilerAction")


class schedule:  # noqa: N801 - same name as torch.profiler.schedule
    """torch.profiler.schedule(wait, warmup, active, repeat, skip_first): a callable step -> ProfilerAction.

    Checks its arguments as torch does (AssertionError "Invalid profiler schedule arguments", a
    warning without warmup). kinetoscope.profile runs it natively; any other callable returning a
    ProfilerAction (torch.profiler.schedule's included) works too, called from Python each step.
    skip_first_wait (newer torch) is accepted.
    """

    def __init__(self, *, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
        assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, \
            "Invalid profiler schedule arguments"
        if warmup == 0:
            warn("Profiler won't be using warmup, this can skew profiler results")
        self.params = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first,
                           skip_first_wait=skip_first_wait)

    def __call__(self, step):
        assert step >= 0
        p = self.params
        if step < p["skip_first"]:
            return ProfilerAction.NONE
        s = step - p["skip_first"]
        if p["skip_first_wait"]:
            s += p["wait"]
        n = p["wait"] + p["warmup"] + p["active"]
        if p["repeat"] > 0 and s / n >= p["repeat"]:
            return ProfilerAction.NONE
        m = s % n
        if m < p["wait"]:
            return ProfilerAction.NONE
        if m < p["wait"] + p["warmup"]:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if m < n - 1 else ProfilerAction.RECORD_AND_SAVE


def supported_activities():
    """CPU always; CUDA when torch is imported and sees a GPU (the library's CUPTI collector then
    records kernels, or says in profile.status() why not)."""
    out = {ProfilerActivity.CPU}
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            out.add(ProfilerActivity.CUDA)
    except Exception:
        pass
    return out
