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


def timed_for(fn, seconds=0.3, max_reps=10, repeats=3):
    """Seconds per call of fn, and the calls per repeat: one warm-up call (it compiles and autotunes), one call timed
    by the host to size the repeats to about `seconds` each (1 to max_reps calls), then timed(fn) without warm-up."""
    import time
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter(); fn(); torch.cuda.synchronize(); once = time.perf_counter() - t0
    reps = max(1, min(max_reps, int(seconds / max(once, 1e-6))))
    return timed(fn, reps=reps, warmup=0, repeats=repeats), reps
