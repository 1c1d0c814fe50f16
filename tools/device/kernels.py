#!/usr/bin/env python3
"""Measures the kernel rates the training model's generation constants stand for, on one GPU.

usage: python3 tools/device/kernels.py OUT.json [--fp8-layouts]

What it times (CUDA events; each case repeated until it has run >= 30 ms, after a warm-up):
  - 16-bit GEMMs (torch.matmul, bf16 in and out, fp32 accumulate) of transformer shapes in the three
    layouts of a training step: forward Y = X W^T (K = input width), data gradient dX = dY W
    (K = output width), weight gradient dW = dY^T X (K = tokens); plus a K sweep and an M sweep;
  - FP8 GEMMs (torch._scaled_mm, e4m3 x e4m3 -> bf16, per-tensor scales) of the same forward shapes
    and K sweep (the layout Transformer Engine and torchao use: A row-major, B column-major);
  - causal attention (torch scaled_dot_product_attention, bf16) with the FlashAttention-2 and the
    cuDNN backends, forward and forward + backward, 16K tokens per call as in the FlashAttention
    papers' benchmarks (batch = 16384 / seq, heads = 2048 / head_dim), FLOPs counted as they do:
    forward 4 x batch x seq^2 x heads x head_dim / 2 (causal), backward 2.5 x forward;
  - memory: a device-to-device copy, an element-wise add and an RMSNorm (bytes read + written);
  - the launch cost of a tiny kernel.
The JSON it writes is stored under tests/data/kernels/; tests/unit/test_kernels.cpp compares the
model's generation constants with it.
"""
import json
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from timing import timed

DEV = torch.device("cuda")




def gemm16(m, n, k, layout):
    """16-bit GEMM of an (m x k) by (k x n) product in one of the three training layouts."""
    if layout == "forward":  # Y[m,n] = X[m,k] W[n,k]^T
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(n, k, device=DEV, dtype=torch.bfloat16).t()
    elif layout == "dgrad":  # dX[m,k'] = dY[m,n'] W[n',k']: inner dimension k = the layer's output width
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    else:  # wgrad: dW[m',n] = dY^T[m',k] X[k,n]: inner dimension k = tokens
        a = torch.randn(k, m, device=DEV, dtype=torch.bfloat16).t()
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    out = torch.empty(m, n, device=DEV, dtype=torch.bfloat16)
    s = timed(lambda: torch.matmul(a, b, out=out))
    return {"precision": "bf16", "layout": layout, "m": m, "n": n, "k": k, "seconds": s, "tflops": 2 * m * n * k / s / 1e12}


def gemm8(m, n, k, layout="forward"):
    """FP8 GEMM of (m x k) by (k x n). FP8 GEMMs always run A row-major x B column-major (cuBLASLt);
    Transformer Engine casts each operand to that layout (its cast-transpose), so the data- and
    weight-gradient GEMMs are this kernel on their own shapes (`layout` only labels the row)."""
    a = torch.randn(m, k, device=DEV).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEV).to(torch.float8_e4m3fn).t()
    one = torch.ones((), device=DEV, dtype=torch.float32)
    s = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    return {"precision": "fp8", "layout": layout, "m": m, "n": n, "k": k, "seconds": s, "tflops": 2 * m * n * k / s / 1e12}


def attention(backend, seq, head_dim, backward):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    be = {"flash2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    batch, heads = max(1, 16384 // seq), 2048 // head_dim
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device=DEV, dtype=torch.bfloat16, requires_grad=backward) for _ in range(3))
    fwd_flops = 4 * batch * seq * seq * heads * head_dim / 2
    with sdpa_kernel([be]):
        if backward:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            g = torch.randn_like(o)

            def step():
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                torch.autograd.grad(out, (q, k, v), g)

            s = timed(step)
            flops = 3.5 * fwd_flops
        else:
            with torch.no_grad():
                s = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
            flops = fwd_flops
    return {"backend": backend, "seq": seq, "head_dim": head_dim, "batch": batch, "heads": heads,
            "pass": "forward+backward" if backward else "forward", "seconds": s, "tflops": flops / s / 1e12}


def memory():
    n = 1 << 30  # 1 Gi bf16 elements = 2 GiB
    x = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    z = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    rows = []
    s = timed(lambda: y.copy_(x))
    rows.append({"op": "copy", "bytes": 4 * n, "seconds": s, "tb_per_s": 4 * n / s / 1e12})
    s = timed(lambda: torch.add(x, z, out=y))
    rows.append({"op": "add", "bytes": 6 * n, "seconds": s, "tb_per_s": 6 * n / s / 1e12})
    h = 8192
    t = x.view(-1, h)[:65536]
    w = torch.ones(h, device=DEV, dtype=torch.bfloat16)
    s = timed(lambda: F.rms_norm(t, (h,), w))
    rows.append({"op": "rms_norm", "bytes": 4 * t.numel(), "seconds": s, "tb_per_s": 4 * t.numel() / s / 1e12})
    del x, y, z
    return rows


def launch():
    a = torch.zeros(1, device=DEV)

    def many():
        for _ in range(1000):
            a.add_(1.0)

    return {"op": "1000 one-element adds", "seconds_per_kernel": timed(many) / 1000}


def smi():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return "nvidia-smi: " + str(e)


def main():
    out = sys.argv[1]
    # --fp8-layouts: only the FP8 data- and weight-gradient shapes of the layers (a supplement to a full run).
    fp8_layouts_only = "--fp8-layouts" in sys.argv[2:]
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    p = torch.cuda.get_device_properties(0)
    res = {"device": p.name, "multiprocessors": p.multi_processor_count, "memory_bytes": p.total_memory,
           "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "date": time.strftime("%Y-%m-%d"), "smi_before": smi(), "gemm": [], "attention": [], "errors": []}

    def keep(bucket, f, *a, model=None):
        try:
            r = f(*a)
            if model:
                r["model"] = model
            res[bucket].append(r)
            print(bucket, json.dumps(r), flush=True)
        except Exception as e:  # noqa: BLE001
            res["errors"].append(f"{f.__name__}{a}: {type(e).__name__}: {e}"[:300])
            print("error", res["errors"][-1], flush=True)

    # Warm the clocks: ~3 s of large products.
    a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    t0 = time.time()
    while time.time() - t0 < 3:
        a @ a
    torch.cuda.synchronize()
    del a

    # K sweep (M = N = 8192) and M sweep (N = K = 8192), forward layout, both precisions.
    for k in () if fp8_layouts_only else (256, 512, 1024, 2048, 4096, 8192, 16384, 32768):
        keep("gemm", gemm16, 8192, 8192, k, "forward")
        keep("gemm", gemm8, 8192, 8192, k)
    for m in () if fp8_layouts_only else (64, 128, 256, 512, 1024, 2048, 4096):
        keep("gemm", gemm16, m, 8192, 8192, "forward")
        keep("gemm", gemm8, m, 8192, 8192)
    # Transformer layers (tokens of a micro-batch x [output, input] widths): Llama 3 8B and 70B at
    # tp 1 / 8 / 8, GPT-3 175B at tp 8, 4096 and 16384 tokens; all three layouts.
    mats = {
        "llama3-8b tp1": [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)],
        "llama3-70b tp8": [(1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584)],
        "gpt3-175b tp8": [(4608, 12288), (12288, 1536), (6144, 12288), (12288, 6144)],
        "llama3-405b tp8": [(2304, 16384), (16384, 2048), (6656, 16384), (16384, 6656)],
    }
    for name, ms in mats.items():
        for tokens in (4096, 16384):
            for n_out, k_in in ms:
                for layout in ("forward", "dgrad", "wgrad"):
                    if layout == "forward":
                        m, n, k = tokens, n_out, k_in
                    elif layout == "dgrad":
                        m, n, k = tokens, k_in, n_out
                    else:
                        m, n, k = n_out, k_in, tokens
                    if not fp8_layouts_only:
                        keep("gemm", gemm16, m, n, k, layout, model=name)
                    if layout == "forward" and not fp8_layouts_only or layout != "forward" and fp8_layouts_only:
                        keep("gemm", gemm8, m, n, k, layout, model=name)

    for backend in () if fp8_layouts_only else ("flash2", "cudnn"):
        for hd in (64, 128):
            for seq in (512, 1024, 2048, 4096, 8192, 16384, 32768):
                for bwd in (False, True):
                    keep("attention", attention, backend, seq, hd, bwd)
    if not fp8_layouts_only:
        try:
            res["memory"] = memory()
            print("memory", json.dumps(res["memory"]), flush=True)
            res["launch"] = launch()
            print("launch", json.dumps(res["launch"]), flush=True)
        except Exception as e:  # noqa: BLE001
            res["errors"].append(f"memory: {e}"[:300])
    res["smi_after"] = smi()
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print("done", len(res["gemm"]), "gemm", len(res["attention"]), "attention", len(res["errors"]), "errors")


if __name__ == "__main__":
    main()
