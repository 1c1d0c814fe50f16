#!/usr/bin/env python3
"""One rank's share of a mixture-of-experts layer on one GPU: the routed experts' grouped GEMMs and
the routing around them, forward + backward, for the MoE models of the reference runs.

usage: python3 tools/device/moe_layer.py OUT.json

Per model and expert-parallel size ep, a rank holds experts / ep experts and, after the dispatch,
receives tokens x top-k / ep rows (balanced routing). Timed with CUDA events (bf16):
  - grouped: the experts' SwiGLU MLPs as torch._grouped_mm (one kernel per matrix for all local
    experts, as torchtitan and Megatron-Core's grouped GEMM), forward + backward through autograd;
    FLOPs 3 x 2 x rows x (h x 2 f + f x h);
  - sequential: the same as one torch.matmul per expert (Megatron-Core SequentialMLP);
  - routing: the router GEMM, softmax, top-k, sorting the token copies by expert, gathering them,
    the per-expert counts copied to the host (an all-to-all dispatcher needs the split sizes), the
    weighted scatter back, forward + backward; no all-to-all (one GPU).
"""
import json
import sys
import time

import torch

from timing import timed as _timed

DEV = torch.device("cuda")


def timed(fn, target=0.03):
    return _timed(fn, target, least=3, most=500)

BF = torch.bfloat16

MODELS = {  # hidden, expert ffn width, experts, top-k; the ep sizes of the reference runs
    "qwen3-30b-a3b": (2048, 768, 128, 8, (8,)),
    "qwen3-235b-a22b": (4096, 1536, 128, 8, (8, 32)),
    "deepseek-v3": (7168, 2048, 256, 8, (8, 32, 64)),
    "gpt-oss-120b": (2880, 2880, 128, 4, (8, 64)),
    "mixtral-8x7b": (4096, 14336, 8, 2, (8,)),
}




def expert_weights(e, h, f):
    w13 = (torch.randn(e, 2 * f, h, device=DEV, dtype=BF) * 0.02).requires_grad_()
    w2 = (torch.randn(e, h, f, device=DEV, dtype=BF) * 0.02).requires_grad_()
    return w13, w2


def grouped_step(x, w13, w2, offs, g):
    def run():
        y = torch._grouped_mm(x, w13.transpose(-2, -1), offs=offs)
        a, b = y.chunk(2, dim=-1)
        z = torch.nn.functional.silu(a) * b
        o = torch._grouped_mm(z, w2.transpose(-2, -1), offs=offs)
        torch.autograd.grad(o, (x, w13, w2), g)
    return run


def sequential_step(x, w13, w2, per, g):
    def run():
        outs = []
        for i in range(w13.shape[0]):
            xi = x[i * per:(i + 1) * per]
            y = xi @ w13[i].t()
            a, b = y.chunk(2, dim=-1)
            outs.append((torch.nn.functional.silu(a) * b) @ w2[i].t())
        o = torch.cat(outs)
        torch.autograd.grad(o, (x, w13, w2), g)
    return run


def routing_step(tokens, h, experts, k):
    x = torch.randn(tokens, h, device=DEV, dtype=BF, requires_grad=True)
    wr = (torch.randn(experts, h, device=DEV, dtype=BF) * 0.02).requires_grad_()

    def run():
        logits = x @ wr.t()
        p = torch.softmax(logits.float(), dim=-1)
        w, idx = torch.topk(p, k, dim=-1)
        flat = idx.reshape(-1)
        order = torch.argsort(flat, stable=True)
        counts = torch.bincount(flat, minlength=experts)
        _ = counts.tolist()  # split sizes on the host
        src = order // k
        routed = x.index_select(0, src)  # the copies, grouped by expert
        back = torch.zeros_like(x).index_add(0, src, routed * w.reshape(-1)[order].unsqueeze(-1).to(BF))
        torch.autograd.grad(back, (x, wr), torch.ones_like(back))
    return run


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
           "tokens_per_rank": 4096, "rows": [], "errors": []}
    T = 4096
    for name, (h, f, E, k, eps) in MODELS.items():
        for ep in eps:
            el = max(1, E // ep)
            per = max(16, int(round(T * k / ep / el / 16.0)) * 16)  # rows per local expert (balanced, 16-aligned)
            rows = per * el
            row = {"model": name, "hidden": h, "expert_ffn": f, "experts": E, "top_k": k, "ep": ep, "local_experts": el,
                   "rows_per_expert": per, "rows": rows, "gemm_flops": 3 * 2 * rows * (h * 2 * f + f * h)}
            try:
                w13, w2 = expert_weights(el, h, f)
                x = torch.randn(rows, h, device=DEV, dtype=BF, requires_grad=True)
                g = torch.randn(rows, h, device=DEV, dtype=BF)
                offs = torch.arange(per, rows + 1, per, device=DEV, dtype=torch.int32)
                try:
                    s = timed(grouped_step(x, w13, w2, offs, g))
                    row["grouped_seconds"] = s
                    row["grouped_tflops"] = row["gemm_flops"] / s / 1e12
                except Exception as e:  # noqa: BLE001
                    res["errors"].append(f"grouped {name} ep{ep}: {type(e).__name__}: {e}"[:300])
                if el <= 64:
                    s = timed(sequential_step(x, w13, w2, per, g))
                    row["sequential_seconds"] = s
                    row["sequential_tflops"] = row["gemm_flops"] / s / 1e12
                del w13, w2, x, g
                s = timed(routing_step(T, h, E, k))
                row["routing_seconds"] = s
            except Exception as e:  # noqa: BLE001
                res["errors"].append(f"{name} ep{ep}: {type(e).__name__}: {e}"[:300])
            res["rows"].append(row)
            print(json.dumps(row), flush=True)
            torch.cuda.empty_cache()
    with open(out, "w") as fh:
        json.dump(res, fh, indent=1)
    print("done", len(res["rows"]), "rows", res["errors"])


if __name__ == "__main__":
    main()
