"""What bench/multigpu_collectives.py, bench/multigpu_training_sweep.py and bench/multigpu_trainer_accelerate.py share:
the launch environment (NVLink multicast always off, the three NCCL transports), the machine's description, NCCL's
INFO log read back (the transport each channel took, the algorithm and protocol each collective was given), the models
the sweep trains (GPT- and Llama-shaped, plain PyTorch, built from the catalogue's presets), and torchtitan's FLOPs count.

Nothing here downloads anything; the device machine reaches nothing outside it.
"""
import json, os, re, shutil, subprocess, sys

# NVLink multicast off in every process we start (on the lent machines a program that uses it can put the host's GPUs out of
# service). Merged into every environment handed to torchrun or accelerate, and set in our own.
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NO_MULTICAST)

# The transports of issue 24, as the run file's cluster.intra_node.transport names them (knowledge-base/transports.json).
TRANSPORTS = {
    "p2p": {},                                                   # NCCL's default: peer-to-peer over NVLink
    "shm": {"NCCL_P2P_DISABLE": "1"},                            # staged through host shared memory
    "socket": {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"},  # NCCL's socket network transport over TCP
}

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def launch_env(transport, extra=None):
    """The environment of one launch: ours, the transport's switches, multicast off (last, so nothing undoes it)."""
    env = dict(os.environ)
    for k in ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"):
        env.pop(k, None)
    env.update(TRANSPORTS[transport])
    env.update(extra or {})
    env.update(NO_MULTICAST)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def med(xs):
    xs = sorted(x for x in xs if x is not None)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def sh(cmd, timeout=30):
    """A command's output, or the reason there is none (nvidia-smi may be missing on a CPU machine)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (r.stdout + r.stderr).strip()
    except Exception as e:                          # noqa: BLE001 - a description of the machine must not stop a run
        return f"unavailable: {e!r}"


def machine():
    """What the launch ran on: GPUs, driver, topology (nvidia-smi topo -m, which the project's parser reads), NVLink
    state, cores, and the software the numbers depend on."""
    info = {"nvidia_smi_L": sh(["nvidia-smi", "-L"]), "topo_m": sh(["nvidia-smi", "topo", "-m"]),
            "nvlink_status": sh(["nvidia-smi", "nvlink", "--status"])[:20000],
            "driver": sh(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]).split("\n")[0],
            "cpu_count": os.cpu_count(), "kernel": sh(["uname", "-r"]), "python": sys.version.split()[0]}
    try:
        import torch
        info["torch"] = torch.__version__
        info["cuda"] = torch.version.cuda
        try:
            info["nccl"] = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception as e:                      # noqa: BLE001
            info["nccl"] = f"unavailable: {e!r}"
    except ImportError:
        pass
    for name in ("transformers", "accelerate"):
        try:
            info[name] = __import__(name).__version__
        except Exception:                           # noqa: BLE001
            pass
    return info


# ----------------------------------------------------------------- NCCL's INFO log ----------------------------------
# NCCL 2.25 and later (src/enqueue.cc, NVIDIA/nccl 5067397 line 822; the same since v2.25.1-1):
#   "AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}"       (rank 0 only, subsystem TUNING)
# NCCL 2.21-2.24 print numbers: "AllReduce: 4096 Bytes -> Algo 1 proto 0 time 12.3" (2.21 without the name).
# Copy-engine and symmetric-kernel paths (2.27+) print "AllGather [Copy Engine]: N Bytes -> cudaMemcpy..." and
# "AllReduce [Symmetric]: N Bytes -> Kernel NAME nchannels C nthreads T".
TUNING_RE = re.compile(r"(?:(?P<func>[A-Za-z]+)(?: \[(?P<path>[^\]]+)\])?: )?(?P<bytes>\d+) Bytes -> "
                       r"(?:Algo (?P<algo>\w+) proto (?P<proto>\w+)(?: channel\{Lo\.\.Hi\}=\{(?P<lo>\d+)\.\.(?P<hi>\d+)\})?"
                       r"|Kernel (?P<kernel>\S+)(?: nchannels (?P<nch>\d+))?|(?P<ce>cudaMemcpy\S*|RMA proxy \+ CE))")
ALGOS = ["TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"]   # src/include/device.h order
PROTOS = ["LL", "LL128", "SIMPLE"]
# "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "Channel 00 : 0[0] -> 1[1] via SHM/direct",
# "Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0" (src/transport/{p2p,shm,net}.cc)
VIA_RE = re.compile(r"Channel \d+(?:/\d+)? : (\d+)\[\d+\] -> (\d+)\[\d+\](?: \[(?:send|receive)\])? via (\S+)")
VERSION_RE = re.compile(r"NCCL version (\S+)")


def parse_nccl_log(text):
    """The collectives NCCL tuned (in order), the transports its channels took, its version, and the tuning table's
    lines (graph/tuning.cc prints each algorithm and protocol's latency/bandwidth estimate at init, rank 0)."""
    calls, via, table = [], {}, []
    version = None
    in_table = False
    for line in text.splitlines():
        if version is None:
            m = VERSION_RE.search(line)
            if m:
                version = m.group(1)
        m = TUNING_RE.search(line)
        if m and " Bytes -> " in line:
            d = {"func": m.group("func"), "bytes": int(m.group("bytes"))}
            if m.group("path"):
                d["path"] = m.group("path")
            if m.group("algo") is not None:
                a, p = m.group("algo"), m.group("proto")
                d["algo"] = ALGOS[int(a)] if a.isdigit() and int(a) < len(ALGOS) else a
                d["proto"] = PROTOS[int(p)] if p.isdigit() and int(p) < len(PROTOS) else p
                if m.group("lo") is not None:
                    d["channels"] = int(m.group("hi")) - int(m.group("lo")) + 1
            elif m.group("kernel"):
                d["algo"] = "symmetric-kernel:" + m.group("kernel")
                if m.group("nch"):
                    d["channels"] = int(m.group("nch"))
            elif m.group("ce"):
                d["algo"] = "copy-engine:" + m.group("ce")
            calls.append(d)
            continue
        m = VIA_RE.search(line)
        if m:
            kind = m.group(3).split("/")[0]
            via.setdefault(kind, set()).add(m.group(3))
            continue
        if "Algorithm   |" in line:
            in_table = True
        if in_table and "|" in line and ("NCCL INFO" in line or line.strip().startswith(("Algorithm", "Protocol"))):
            table.append(line.split("NCCL INFO", 1)[-1].rstrip())
            if len(table) > 200:
                in_table = False
    return {"version": version, "calls": calls, "via": {k: sorted(v) for k, v in via.items()}, "tuning_table": table}


# ------------------------------------------------------------------ models -----------------------------------------
def preset(name):
    """A model preset of the catalogue (model/NAME.json), or one of the tiny shapes used only to test the scripts."""
    tiny = {
        "tiny-gpt": dict(name="tiny-gpt", layers=4, hidden=256, heads=4, kv_heads=4, ffn_hidden=1024, vocab=4096,
                         gated_mlp=False, tied_embeddings=True, position_embedding="learned", norm="layernorm",
                         qkv_bias=True, max_seq_len=2048),
        "tiny-llama": dict(name="tiny-llama", layers=4, hidden=256, heads=4, kv_heads=2, ffn_hidden=688, vocab=4096,
                           gated_mlp=True, tied_embeddings=False, position_embedding="rope", norm="rmsnorm",
                           qkv_bias=False, max_seq_len=4096),
    }
    if name in tiny:
        return tiny[name]
    with open(os.path.join(REPO, "model", name + ".json")) as f:
        return json.load(f)


def build_model(cfg, seq_len, tied=None):
    """A decoder-only transformer in plain PyTorch of the preset's shape. GPT-shaped presets (layernorm, learned
    positions, GELU-tanh MLP of two matrices, biases) and Llama-shaped ones (rmsnorm, rotary, SwiGLU, no biases,
    grouped KV heads) alike. Separate wq/wk/wv and MLP matrices, as torchtitan writes them, so that tensor parallelism
    shards them column- and row-wise. Attention is F.scaled_dot_product_attention(is_causal=True) (cuDNN's fused
    kernel on an H200 in bf16: knowledge-base/measurements/h200-sdpa-default.json). Blocks are in a ModuleDict keyed
    by index so a pipeline stage keeps its layers' names. tied=False unties a preset's tied embeddings (tensor and
    pipeline parallelism here run untied: the run file says so)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    h, nh = cfg["hidden"], cfg["heads"]
    nkv = cfg.get("kv_heads") or nh
    hd = cfg.get("head_dim") or h // nh
    ffn, V, L = cfg["ffn_hidden"], cfg["vocab"], cfg["layers"]
    gpt = cfg.get("norm", "layernorm") == "layernorm"
    rope = cfg.get("position_embedding") == "rope"
    learned = cfg.get("position_embedding") == "learned"
    bias = bool(cfg.get("qkv_bias", False)) if not gpt else True
    tied = cfg.get("tied_embeddings", False) if tied is None else tied

    def norm():
        return nn.LayerNorm(h) if gpt else nn.RMSNorm(h, eps=1e-5)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.wq = nn.Linear(h, nh * hd, bias=bias)
            self.wk = nn.Linear(h, nkv * hd, bias=bias)
            self.wv = nn.Linear(h, nkv * hd, bias=bias)
            self.wo = nn.Linear(nh * hd, h, bias=gpt)

        def forward(self, x, rot):
            b, s, _ = x.shape
            q = self.wq(x).view(b, s, -1, hd)      # -1: the heads this rank holds (all, or nh / tp)
            k = self.wk(x).view(b, s, -1, hd)
            v = self.wv(x).view(b, s, -1, hd)
            if rot is not None:
                cos, sin = rot[0].to(q.dtype), rot[1].to(q.dtype)
                q = q * cos + torch.cat((-q[..., hd // 2:], q[..., :hd // 2]), -1) * sin
                k = k * cos + torch.cat((-k[..., hd // 2:], k[..., :hd // 2]), -1) * sin
            q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            if k.shape[1] != q.shape[1]:            # grouped KV heads
                k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
                v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.wo(o.transpose(1, 2).reshape(b, s, -1))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            if gpt:
                self.fc = nn.Linear(h, ffn, bias=True)
                self.proj = nn.Linear(ffn, h, bias=True)
            else:
                self.w1 = nn.Linear(h, ffn, bias=False)
                self.w3 = nn.Linear(h, ffn, bias=False)
                self.w2 = nn.Linear(ffn, h, bias=False)

        def forward(self, x):
            if gpt:
                return self.proj(F.gelu(self.fc(x), approximate="tanh"))
            return self.w2(F.silu(self.w1(x)) * self.w3(x))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.attn, self.norm2, self.mlp = norm(), Attention(), norm(), MLP()

        def forward(self, x, rot=None):
            x = x + self.attn(self.norm1(x), rot)
            return x + self.mlp(self.norm2(x))

    class Transformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(V, h)
            self.pos = nn.Embedding(seq_len, h) if learned else None
            self.layers = nn.ModuleDict({str(i): Block() for i in range(L)})
            self.norm = norm()
            self.output = nn.Linear(h, V, bias=False)
            if tied:
                self.output.weight = self.tok.weight
            self.rope = rope

        def rotary(self, s, device):
            inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd))
            f = torch.outer(torch.arange(s, device=device, dtype=torch.float32), inv)
            f = torch.cat((f, f), -1)[None, :, None, :]
            return f.cos(), f.sin()

        def forward(self, x):
            if self.tok is not None:               # the first pipeline stage, or the whole model
                s = x.shape[1]
                x = self.tok(x)
                if self.pos is not None:
                    x = x + self.pos(torch.arange(s, device=x.device))
            rot = self.rotary(x.shape[1], x.device) if self.rope else None
            for layer in self.layers.values():
                x = layer(x, rot)
            if self.norm is not None:
                x = self.norm(x)
            if self.output is not None:
                x = self.output(x)
            return x

    return Transformer()


def init_weights(model):
    """Normal(0, 0.02) matrices and embeddings, unit norms, zero biases, written into each rank's local shard (a
    DTensor's local tensor), so no collective runs; the values only need to train without overflow."""
    import torch
    import torch.nn as nn

    def local(p):
        return p.to_local() if hasattr(p, "to_local") else p

    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.LayerNorm, nn.RMSNorm)):
                if m.weight is not None:
                    local(m.weight).fill_(1.0)
                if getattr(m, "bias", None) is not None:
                    local(m.bias).zero_()
            elif isinstance(m, (nn.Linear, nn.Embedding)):
                local(m.weight).normal_(0.0, 0.02)
                if getattr(m, "bias", None) is not None:
                    local(m.bias).zero_()


def titan_flops_per_token(cfg, nparams, nparams_embedding, seq_len, tied):
    """torchtitan's count (torchtitan/models/utils.py get_dense_model_nparams_and_flops at b5bcd76): 6 x (parameters,
    less the nn.Embedding children unless the embeddings are tied) + 6 x layers x heads x (2 x head_dim) x seq; full
    attention, no recompute. The FlopsConvention TORCHTITAN of the project."""
    hd = cfg.get("head_dim") or cfg["hidden"] // cfg["heads"]
    matmul = nparams if tied else nparams - nparams_embedding
    return 6 * matmul + 6 * cfg["layers"] * cfg["heads"] * 2 * hd * seq_len


def model_flops_per_token(cfg, seq_len, recompute):
    """For planning only: 6 x parameters + 12 x layers x hidden x seq, x 4/3 with full recompute."""
    h, L, V, ffn = cfg["hidden"], cfg["layers"], cfg["vocab"], cfg["ffn_hidden"]
    kv = cfg.get("kv_heads") or cfg["heads"]
    hd = h // cfg["heads"]
    per_layer = 2 * h * h + 2 * h * kv * hd + (3 if cfg.get("gated_mlp") else 2) * h * ffn
    p = L * per_layer + V * h
    f = 6 * p + 12 * L * h * seq_len
    return f * (4 / 3 if recompute == "full" else 1)


def params_of(cfg):
    h, L, V, ffn = cfg["hidden"], cfg["layers"], cfg["vocab"], cfg["ffn_hidden"]
    kv = cfg.get("kv_heads") or cfg["heads"]
    hd = h // cfg["heads"]
    per_layer = 2 * h * h + 2 * h * kv * hd + (3 if cfg.get("gated_mlp") else 2) * h * ffn
    return L * per_layer + V * h * (1 if cfg.get("tied_embeddings") else 2)


def pack(outdir, archive):
    """Everything under outdir as one .tar.gz (the device tool brings back at most 8 files)."""
    base = archive[:-len(".tar.gz")] if archive.endswith(".tar.gz") else archive
    shutil.make_archive(base, "gztar", root_dir=outdir)
    return base + ".tar.gz"
