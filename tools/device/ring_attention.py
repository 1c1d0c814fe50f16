#!/usr/bin/env python3
"""The compute cost of ring attention (context parallelism) on one GPU, against one kernel call.

usage: python3 tools/device/ring_attention.py OUT.json

Context parallelism over cp ranks with causal load balancing (the sequence cut into 2 cp chunks, rank
r holding chunks r and 2 cp - 1 - r: Megatron-Core / Transformer Engine, torch context_parallel) runs
one attention as cp block calls per rank: step 0 the rank's own two chunks under the causal mask,
every later step a half-size unmasked block (the second query chunk against both key chunks, or both
query chunks against the first key chunk). Each call returns its output and log-sum-exp; the partial
outputs are rescaled and merged in fp32. The backward pass calls the kernel's backward once per block
with the merged output and log-sum-exp, accumulating dq, dk, dv in fp32.

This times rank 0's blocks and merges (the key/value exchange is not here: no second GPU) with
torch's FlashAttention-2 kernels (aten._scaled_dot_product_flash_attention and its backward), and one
causal call over the rank's share of the sequence (s / cp tokens) for the same FLOPs per rank, which
is what the training model's ring_attention_efficiency divides: overhead = t_ring / t_single - 1,
ring_overhead = overhead / (1 - 1 / cp). It also samples the GPU's power and clock while a long BF16
GEMM loop and a long attention loop run.
"""
import json
import subprocess
import sys
import threading
import time

import torch

from timing import timed as _timed

DEV = torch.device("cuda")


def timed(fn, target=0.05):
    return _timed(fn, target, least=2, most=200)

FA = torch.ops.aten._scaled_dot_product_flash_attention
FA_BWD = torch.ops.aten._scaled_dot_product_flash_attention_backward




def fwd(q, k, v, causal):
    r = FA(q, k, v, 0.0, causal, False)
    return r  # (out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset, debug)


def bwd(g, q, k, v, out, lse, r, causal):
    return FA_BWD(g, q, k, v, out, lse, r[2], r[3], r[4], r[5], 0.0, causal, r[6], r[7])


def merge(acc_o, acc_l, o, l, rows):
    """acc_o[..., rows, :] and acc_l[..., rows] absorb a block's output o and log-sum-exp l (fp32)."""
    ao, al = acc_o[:, :, rows], acc_l[:, :, rows]
    new = torch.logaddexp(al, l)
    acc_o[:, :, rows] = ao * torch.exp(al - new).unsqueeze(-1) + o.float() * torch.exp(l - new).unsqueeze(-1)
    acc_l[:, :, rows] = new


def ring_rank0(S, cp, heads, d, backward):
    """Rank 0's blocks of one ring attention over S tokens on cp ranks (fp32 merge; backward optional)."""
    c = S // (2 * cp)
    mk = lambda n: torch.randn(1, heads, n, d, device=DEV, dtype=torch.bfloat16)  # noqa: E731
    q, k, v = mk(2 * c), mk(2 * c), mk(2 * c)
    kv_other = [(mk(2 * c), mk(2 * c)) for _ in range(cp - 1)]  # the blocks other ranks send
    g = mk(2 * c)
    second = slice(c, 2 * c)

    def run():
        acc_o = torch.zeros(1, heads, 2 * c, d, device=DEV, dtype=torch.float32)
        acc_l = torch.full((1, heads, 2 * c), -float("inf"), device=DEV, dtype=torch.float32)
        saved = []
        r = fwd(q, k, v, True)
        merge(acc_o, acc_l, r[0], r[1], slice(0, 2 * c))
        saved.append((q, k, v, r, True, slice(0, 2 * c)))
        q2 = q[:, :, second]
        for kk, vv in kv_other:  # rank 0: every later block is its second query chunk against both key chunks
            r = fwd(q2, kk, vv, False)
            merge(acc_o, acc_l, r[0], r[1], second)
            saved.append((q2, kk, vv, r, False, second))
        if not backward:
            return
        out = acc_o.to(torch.bfloat16)
        lse = acc_l
        dq = torch.zeros(1, heads, 2 * c, d, device=DEV, dtype=torch.float32)
        for qq, kk, vv, r, causal, rows in saved:
            o_b = out[:, :, rows].contiguous()
            l_b = lse[:, :, rows].contiguous()
            g_b = g[:, :, rows].contiguous()
            gq, gk, gv = bwd(g_b, qq, kk, vv, o_b, l_b, r, causal)
            dq[:, :, rows] += gq.float()
            _ = gk.float() + gv.float()  # dk, dv accumulated in fp32 before they are sent on

    return run


def single(n, heads, d, backward):
    mk = lambda: torch.randn(1, heads, n, d, device=DEV, dtype=torch.bfloat16)  # noqa: E731
    q, k, v, g = mk(), mk(), mk(), mk()

    def run():
        r = fwd(q, k, v, True)
        if backward:
            bwd(g, q, k, v, r[0], r[1], r, True)

    return run


def check_merge(heads=4, d=128, S=4096, cp=2):
    """The merged ring output equals one causal call over the zigzag-ordered sequence (correctness)."""
    c = S // (2 * cp)
    x = [torch.randn(1, heads, S, d, device=DEV, dtype=torch.bfloat16) for _ in range(3)]
    ref = torch.nn.functional.scaled_dot_product_attention(*x, is_causal=True).float()
    idx = lambda ch: slice(ch * c, (ch + 1) * c)  # noqa: E731
    worst = 0.0
    for r in range(cp):
        mine = [r, 2 * cp - 1 - r]
        q = torch.cat([x[0][:, :, idx(ch)] for ch in mine], 2)
        acc_o = torch.zeros(1, heads, 2 * c, d, device=DEV)
        acc_l = torch.full((1, heads, 2 * c), -float("inf"), device=DEV)
        for j in range(cp):
            theirs = [j, 2 * cp - 1 - j]
            k = torch.cat([x[1][:, :, idx(ch)] for ch in theirs], 2)
            v = torch.cat([x[2][:, :, idx(ch)] for ch in theirs], 2)
            if j == r:
                o = fwd(q, k, v, True)
                merge(acc_o, acc_l, o[0], o[1], slice(0, 2 * c))
            elif j < r:
                o = fwd(q, k[:, :, :c], v[:, :, :c], False)
                merge(acc_o, acc_l, o[0], o[1], slice(0, 2 * c))
            else:
                o = fwd(q[:, :, c:], k, v, False)
                merge(acc_o, acc_l, o[0], o[1], slice(c, 2 * c))
        want = torch.cat([ref[:, :, idx(ch)] for ch in mine], 2)
        worst = max(worst, (acc_o - want).abs().max().item())
    return worst


def sample_power(seconds, work):
    readings = []
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=power.draw,clocks.sm", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=5).stdout.strip()
                p, clk = (float(x) for x in out.split(","))
                readings.append((p, clk))
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.25)

    th = threading.Thread(target=poll)
    th.start()
    t0 = time.time()
    while time.time() - t0 < seconds:
        work()
        torch.cuda.synchronize()
    stop.set()
    th.join()
    late = readings[len(readings) // 3:] or readings
    return {"samples": len(late), "watts_median": sorted(p for p, _ in late)[len(late) // 2] if late else None,
            "sm_mhz_median": sorted(c for _, c in late)[len(late) // 2] if late else None}


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
           "kernel": "torch aten._scaled_dot_product_flash_attention (FlashAttention-2) forward + backward, bf16, causal",
           "rows": [], "errors": []}
    try:
        res["merge_max_abs_error_vs_one_call"] = check_merge()
        print("merge check", res["merge_max_abs_error_vs_one_call"], flush=True)
    except Exception as e:  # noqa: BLE001
        res["errors"].append(f"check_merge: {type(e).__name__}: {e}"[:400])
        print(res["errors"][-1], flush=True)
    heads, d = 32, 128
    for S in (32768, 65536, 131072):
        for cp in (2, 4, 8):
            for backward in (False, True):
                try:
                    n = S // cp
                    t_ring = timed(ring_rank0(S, cp, heads, d, backward))
                    t_one = timed(single(n, heads, d, backward))
                    # The same FLOPs: one causal call over s/cp tokens does (s/cp)^2 / 2 query-key pairs;
                    # a rank's ring share is s^2 / 2 / cp.
                    ratio = (S * S / 2 / cp) / (n * n / 2)
                    over = t_ring / (t_one * ratio) - 1
                    row = {"seq": S, "cp": cp, "pass": "forward+backward" if backward else "forward", "heads": heads, "head_dim": d,
                           "t_ring_rank_s": t_ring, "t_single_s_over_cp_s": t_one, "flops_ratio": ratio,
                           "overhead": over, "ring_overhead": over / (1 - 1 / cp)}
                    res["rows"].append(row)
                    print(json.dumps(row), flush=True)
                except Exception as e:  # noqa: BLE001
                    res["errors"].append(f"S={S} cp={cp} bwd={backward}: {type(e).__name__}: {e}"[:400])
                    print(res["errors"][-1], flush=True)
                torch.cuda.empty_cache()
    try:
        a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
        res["power_gemm_bf16_8192"] = sample_power(6, lambda: [a @ a for _ in range(20)])
        q = torch.randn(1, 32, 32768, 128, device=DEV, dtype=torch.bfloat16)
        res["power_flash2_fwd_32k"] = sample_power(6, lambda: FA(q, q, q, 0.0, True, False))
        print("power", res["power_gemm_bf16_8192"], res["power_flash2_fwd_32k"], flush=True)
    except Exception as e:  # noqa: BLE001
        res["errors"].append(f"power: {type(e).__name__}: {e}"[:400])
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print("done", len(res["rows"]), "rows", len(res["errors"]), "errors")


if __name__ == "__main__":
    main()
