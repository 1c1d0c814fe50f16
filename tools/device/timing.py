"""CUDA-event timing shared by the device scripts in this folder."""
import math

import torch


def timed(fn, target=0.03, least=3, most=2000):
    """Seconds per call of fn: after a warm-up call and one timed call, the median of 3 batches of
    n calls, n chosen so that a batch runs about `target` seconds (between `least` and `most`)."""
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    one = max(a.elapsed_time(b) / 1e3, 1e-7)
    n = int(min(max(math.ceil(target / one), least), most))
    runs = []
    for _ in range(3):
        a.record()
        for _ in range(n):
            fn()
        b.record()
        b.synchronize()
        runs.append(a.elapsed_time(b) / 1e3 / n)
    runs.sort()
    return runs[1]
