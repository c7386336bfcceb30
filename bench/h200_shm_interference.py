"""How much a GEMM slows down while a kernel streams data through host memory beside it, as NCCL's shared-memory
transport does when peer-to-peer is off (its channels' CTAs store into host-mapped pinned memory, one CTA a channel,
two channels on PCIe). Run on one GPU: python3 bench/h200_shm_interference.py OUT.json

For each GEMM shape: the GEMM alone, then beside a long-running copy kernel on another stream:
  d2h  C CTAs storing device -> host-mapped memory (an SHM sender)
  h2d  C CTAs loading host-mapped memory -> device (an SHM receiver)
  spin C CTAs spinning on clock64 (the SMs taken, no memory traffic)
  ce   cudaMemcpyAsync device -> pinned host (the copy engine, no SMs)
slowdown = GEMM time beside / alone - 1; bandwidth of the copy alone and beside.
"""
import json, sys, time
import torch
import cupy as cp

BYTES = 256 << 20
KERNELS = r'''
extern "C" __global__ void copy16(const int4* __restrict__ src, int4* __restrict__ dst, long long n, int reps) {
  for (int r = 0; r < reps; r++)
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
      dst[i] = src[i];
}
extern "C" __global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) { }
}
'''
mod = cp.RawModule(code=KERNELS)
copy16 = mod.get_function("copy16")
spin = mod.get_function("spin")


def mapped(nbytes):
    ptr = cp.cuda.runtime.hostAlloc(nbytes, 2)            # cudaHostAllocMapped
    # with unified virtual addressing (every 64-bit CUDA platform) a mapped host pointer is valid on the device as is
    return ptr, ptr


def gemm_time(a, b, iters):
    # synchronize the GEMMs' own stream only: a device-wide synchronize would wait for the side kernel first
    main = torch.cuda.current_stream()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    torch.mm(a, b)
    main.synchronize()
    s.record()
    for _ in range(iters):
        torch.mm(a, b)
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / iters


def main(out):
    torch.manual_seed(0)
    dev_buf = cp.empty(BYTES, dtype=cp.uint8)
    dev_buf2 = cp.empty(BYTES, dtype=cp.uint8)
    host_ptr, host_dev = mapped(BYTES)
    pinned = cp.cuda.alloc_pinned_memory(BYTES)
    n16 = BYTES // 16
    side = cp.cuda.Stream(non_blocking=True)
    # the GEMMs run on a non-blocking stream of their own, so that nothing serializes them with the side stream
    torch.cuda.set_stream(torch.cuda.Stream())
    rows = []
    shapes = [(8192, 8192, 8192), (16384, 4096, 14336), (4096, 4096, 4096)]
    for (m, k, n) in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * k * n
        iters = max(20, int(0.4 / (flops / 700e12)))      # about 0.4 s of GEMMs
        alone = gemm_time(a, b, iters)
        rows.append({"m": m, "k": k, "n": n, "mode": "alone", "gemm_ms": alone, "tflops": flops / alone / 1e9})
        for mode, ctas in [("d2h", 1), ("d2h", 2), ("d2h", 8), ("h2d", 2), ("spin", 2), ("ce", 0)]:
            # the side kernel must outlast the GEMMs: size its repetitions from a solo run
            def launch(reps):
                with side:
                    if mode == "d2h":
                        copy16((ctas,), (512,), (dev_buf.data.ptr, host_dev, cp.int64(n16), cp.int32(reps)))
                    elif mode == "h2d":
                        copy16((ctas,), (512,), (host_dev, dev_buf2.data.ptr, cp.int64(n16), cp.int32(reps)))
                    elif mode == "spin":
                        spin((ctas,), (32,), (cp.int64(int(reps * 2.0e9 * 0.01)),))
                    else:
                        for _ in range(reps):
                            cp.cuda.runtime.memcpyAsync(pinned.ptr, dev_buf.data.ptr, BYTES, 2, side.ptr)
            t0 = time.perf_counter(); launch(1); side.synchronize(); solo = time.perf_counter() - t0
            gbps = BYTES / solo / 1e9 if mode != "spin" else float("nan")
            reps = max(2, int(3 * iters * alone / 1e3 / solo) + 2)
            launch(reps)
            time.sleep(0.02)                                  # let the side kernel start first
            beside = gemm_time(a, b, iters)
            side.synchronize()
            rows.append({"m": m, "k": k, "n": n, "mode": mode, "ctas": ctas, "side_gbps_alone": gbps,
                         "gemm_ms": beside, "tflops": flops / beside / 1e9, "slowdown": beside / alone - 1})
            print(rows[-1], flush=True)
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cupy": cp.__version__,
               "method": __doc__, "rows": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
