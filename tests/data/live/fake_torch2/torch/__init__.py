# A stand-in for torch >= 2 with only what the bootstrap touches: the process-global optimizer step
# hooks. Debian ships torch 1.13, so this is how the torch 2 branch of the bootstrap gets tested.
from . import optim

__version__ = "2.9.0+fake"


class cuda:
    @staticmethod
    def is_available():
        return False
