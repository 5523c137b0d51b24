from .optimizer import Optimizer


class SGD(Optimizer):
    def step(self):
        self.steps += 1
