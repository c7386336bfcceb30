"""What FSDP's collectives cost the compute they hide behind on one NVLink GPU, in two parts, on one GPU:
python3 bench/h100_nvlink_interference.py OUT.json

1. A GEMM beside NCCL-like channels. NCCL's peer-to-peer transport runs a collective as one CTA per channel (16 to 32
   channels within an NVSwitch node), each loading from local HBM and storing to a peer (an all-gather), or loading
   what a peer stored into local HBM, adding and storing on (a reduce-scatter). On one GPU the stand-in is C CTAs
   copying local HBM to local HBM (as many bytes read and written per byte moved as a ring's rank reads and has
   written into it), unpaced and paced (a pause between 64 KiB chunks) down to the rates NVLink sustains, and C CTAs
   spinning (the SMs taken, no memory traffic). For each GEMM shape: the GEMM alone, then beside the side kernel on
   another stream; slowdown = GEMM time beside / alone - 1; the side kernel's copy rate alone.
2. FSDP2's copies around its collectives (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py): the all-gather's
   copy-out (torch.split_with_sizes_copy of the gathered flat buffer into each parameter, the whole unsharded size
   read and written, forward and again in backward with reshard_after_forward) and the reduce-scatter's copy-in
   (torch._chunk_cat of the unsharded gradients into the reduce-scatter input, cast to reduce_dtype: bf16 read, fp32
   written), timed on the parameter sizes of one layer of OLMo 2 13B and of Llama 2 7B (bf16 parameters): bytes
   read and written over time, against the GPU's HBM rate (a device-to-device copy of 1 GiB).
"""
import json, sys, time
import torch
import cupy as cp

BYTES = 512 << 20
KERNELS = r'''
extern "C" __global__ void copy_paced(const int4* __restrict__ src, int4* __restrict__ dst, long long chunks,
                                      int chunk16, int reps, long long gap) {
  for (int r = 0; r < reps; r++)
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
      const int4* s = src + c * chunk16; int4* d = dst + c * chunk16;
      for (int i = threadIdx.x; i < chunk16; i += blockDim.x) d[i] = s[i];
      if (gap > 0) {
        __syncthreads();
        if (threadIdx.x == 0) { long long t0 = clock64(); while (clock64() - t0 < gap) { } }
        __syncthreads();
      }
    }
}
extern "C" __global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) { }
}
'''
mod = cp.RawModule(code=KERNELS)
copy_paced = mod.get_function("copy_paced")
spin = mod.get_function("spin")
CHUNK16 = (64 << 10) // 16


def timed(fn, iters):
    main = torch.cuda.current_stream()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    fn()
    main.synchronize()
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / iters


def interference(rows):
    src = cp.empty(BYTES, dtype=cp.uint8)
    dst = cp.empty(BYTES, dtype=cp.uint8)
    chunks = BYTES // (CHUNK16 * 16)
    side = cp.cuda.Stream(non_blocking=True)
    torch.cuda.set_stream(torch.cuda.Stream())

    def launch(ctas, gap, reps, mode):
        with side:
            if mode == "spin":
                spin((ctas,), (32,), (cp.int64(int(reps * 1.8e9 * 0.01)),))
            else:
                copy_paced((ctas,), (512,), (src.data.ptr, dst.data.ptr, cp.int64(chunks), cp.int32(CHUNK16),
                                             cp.int32(reps), cp.int64(gap)))

    def solo(ctas, gap, mode):
        t0 = time.perf_counter(); launch(ctas, gap, 1, mode); side.synchronize(); t = time.perf_counter() - t0
        return t, (BYTES / t / 1e9 if mode != "spin" else float("nan"))

    # the pauses that bring C CTAs' copy to about 300, 450 and 700 GB/s (NVLink4's all-gather bus bandwidth is about
    # 370 GB/s; a reduce-scatter's rank reads its own and its peer's data): found once per C by bisection on the gap
    sides = []
    for ctas in (8, 16, 24, 32):
        t, gbps = solo(ctas, 0, "copy")
        sides.append(("copy", ctas, 0, gbps))
        for target in (300.0, 450.0, 700.0):
            if gbps <= target * 1.05:
                continue
            lo, hi = 0, 1 << 22
            for _ in range(18):
                mid = (lo + hi) // 2
                _, g = solo(ctas, mid, "copy")
                if g > target: lo = mid
                else: hi = mid
            _, g = solo(ctas, hi, "copy")
            sides.append(("paced", ctas, hi, g))
        sides.append(("spin", ctas, 0, float("nan")))
    print("side kernels:", sides, flush=True)
    shapes = [(8192, 8192, 8192), (4096, 5120, 27648), (4096, 13824, 5120), (8192, 4096, 22016)]
    for (m, k, n) in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * k * n
        iters = max(20, int(0.3 / (flops / 650e12)))
        alone = timed(lambda: torch.mm(a, b), iters)
        rows.append({"part": "gemm", "m": m, "k": k, "n": n, "mode": "alone", "gemm_ms": alone,
                     "tflops": flops / alone / 1e9})
        print(rows[-1], flush=True)
        for (mode, ctas, gap, gbps) in sides:
            t, _ = solo(ctas, gap, "spin" if mode == "spin" else "copy")
            reps = max(2, int(3 * iters * alone / 1e3 / t) + 2)
            launch(ctas, gap, reps, "spin" if mode == "spin" else "copy")
            time.sleep(0.02)
            beside = timed(lambda: torch.mm(a, b), iters)
            side.synchronize()
            again = timed(lambda: torch.mm(a, b), iters)      # the GEMM alone again: the clocks after the load
            rows.append({"part": "gemm", "m": m, "k": k, "n": n, "mode": mode, "ctas": ctas, "gap_cycles": gap,
                         "side_gbps_alone": gbps, "gemm_ms": beside, "tflops": flops / beside / 1e9,
                         "slowdown": beside / alone - 1, "alone_after_ms": again})
            print(rows[-1], flush=True)
        del a, b
    torch.cuda.set_stream(torch.cuda.default_stream())


def layer_sizes(h, ffn, heads, kv_heads):
    hd = h // heads
    return [h * h, kv_heads * hd * h, kv_heads * hd * h, h * h, ffn * h, ffn * h, h * ffn, h, h]


def fsdp_copies(rows):
    x = torch.empty(1 << 29, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    ms = timed(lambda: y.copy_(x), 20)
    hbm = 2 * x.numel() * 2 / ms / 1e6
    rows.append({"part": "hbm", "what": "device-to-device copy of 1 GiB (bf16)", "ms": ms, "gbps_read_plus_write": hbm})
    print(rows[-1], flush=True)
    del x, y
    world = 8
    for name, (h, ffn, heads, kv) in {"olmo2-13b layer": (5120, 13824, 40, 40),
                                      "llama-2-7b layer": (4096, 11008, 32, 32)}.items():
        sizes = layer_sizes(h, ffn, heads, kv)
        total = sum(sizes)
        # copy-out: the gathered buffer is (world, shard) viewed; split_with_sizes_copy along dim 1 into each param
        shard = [(s + world - 1) // world for s in sizes]
        gathered = torch.empty(world, sum(shard), dtype=torch.bfloat16, device="cuda")
        outs = [torch.empty(world, s, dtype=torch.bfloat16, device="cuda") for s in shard]
        ms = timed(lambda: torch.split_with_sizes_copy(gathered, shard, dim=1, out=outs), 30)
        b = 2 * gathered.numel() * 2
        rows.append({"part": "fsdp2", "what": "all-gather copy-out (split_with_sizes_copy)", "layer": name,
                     "elements": gathered.numel(), "ms": ms, "bytes_read_plus_written": b, "gbps": b / ms / 1e6})
        print(rows[-1], flush=True)
        del gathered, outs
        # copy-in: each unsharded bf16 gradient chunked in world pieces and concatenated, cast to fp32
        grads = [torch.randn(s, dtype=torch.bfloat16, device="cuda") for s in sizes]
        cols = sum(shard)
        for dtype, label in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
            out_buf = torch.empty(world, cols, dtype=dtype, device="cuda")
            try:        # as FSDP2 calls it: the cast inside the chunk_cat kernel, into the reduce-scatter input
                ms = timed(lambda: torch._chunk_cat(grads, dim=0, num_chunks=world, out=out_buf), 30)
                how = "_chunk_cat(out=%s)" % label
            except Exception as e:
                ms = timed(lambda: torch._chunk_cat(grads, dim=0, num_chunks=world).to(dtype), 30)
                how = "_chunk_cat then .to(%s) (out= refused: %s)" % (label, str(e)[:80])
            b = total * 2 + world * cols * (4 if dtype == torch.float32 else 2)
            rows.append({"part": "fsdp2", "what": "reduce-scatter copy-in, reduce_dtype " + label, "call": how,
                         "layer": name, "elements": total, "ms": ms, "bytes_read_plus_written": b,
                         "gbps": b / ms / 1e6})
            print(rows[-1], flush=True)
            del out_buf
        del grads


def main(out):
    torch.manual_seed(0)
    rows = []
    t0 = time.time()
    fsdp_copies(rows)
    interference(rows)
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cupy": cp.__version__,
               "sms": torch.cuda.get_device_properties(0).multi_processor_count, "seconds": time.time() - t0,
               "method": __doc__, "rows": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
