# An unmodified script with nested Python functions calling torch (tests/scripts/test_live_torch_stack.sh).
import sys
import threading

import torch


def inner_matmul(x, w):
    return torch.mm(x, w)


def outer_layer(x, w):
    return torch.relu(inner_matmul(x, w))


def in_thread(x, w):
    return torch.tanh(inner_matmul(x, w))


def main(steps):
    x = torch.randn(8, 16)
    w = torch.randn(16, 16)
    model = torch.nn.Linear(16, 16)
    for _ in range(steps):
        outer_layer(x, w)
        model(x)
    t = threading.Thread(target=in_thread, args=(x, w))
    t.start()
    t.join()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
