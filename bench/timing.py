"""CUDA-event timing shared by the bench/h200_*.py microbenchmarks."""
import statistics
import torch


def timed(fn, reps=10, warmup=3, repeats=3):
    """Seconds per call of fn: CUDA events around reps calls after warmup calls, the median of repeats."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(repeats):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            fn()
        e.record(); torch.cuda.synchronize()
        out.append(s.elapsed_time(e) / 1e3 / reps)
    return statistics.median(out)
