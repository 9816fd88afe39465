#!/usr/bin/python3
"""PyTorch's side of bench/compare: the same workloads as bench/empl_bench.cpp, given PyTorch's
best: batches generated with torch itself, no Python-level work in the loop beyond the step, the
thread count set for torch (and, by bench/compare, for its OpenBLAS with OMP_WAIT_POLICY=PASSIVE).

    /usr/bin/python3 bench/torch_bench.py --case toy_step --threads 1 --reps 200

prints  case=<name> threads=<n> median_ms=<m> p10_ms=<a> p90_ms=<b> rss_mb=<peak>
"""
import argparse
import resource
import time

import torch

B = 2048


def empl_loss(pred, target, tau):
    """The EMPL of the paper's appendix, per-sample tau [B, 1]."""
    delta = torch.cumsum(pred, dim=1) - torch.cumsum(target, dim=1)
    return (((delta >= 0).to(delta.dtype) - tau) * delta).mean()


def toy_batch():
    u = torch.rand(B)
    x = torch.round(10.0 ** (3.0 * u))
    remaining, mass, counts = x.clone(), 1.0, []
    for _ in range(4):  # conditional binomials, as empl does
        c = torch.binomial(remaining, torch.full_like(remaining, 0.2 / mass))
        counts.append(c)
        remaining, mass = remaining - c, mass - 0.2
    counts.append(remaining)
    labels = torch.stack(counts, dim=1) / x[:, None]
    tau = torch.rand(B, 1)
    inputs = torch.stack([(tau[:, 0] - 0.5) * 12.0, (u - 0.5) * 12.0], dim=1)
    return inputs, labels, tau


def bimodal_batch():
    xi, b1, b2, tau = torch.rand(B, 1), torch.rand(B, 1), torch.rand(B, 1), torch.rand(B, 1)
    j = torch.arange(10.0)
    line1 = j + b1 * torch.randn(B, 10)
    line2 = -j + b2 * torch.randn(B, 10)
    line = torch.where(torch.rand(B, 1) < xi, line1, line2)
    line = line - line.min(dim=1, keepdim=True).values
    labels = line / line.sum(dim=1, keepdim=True)
    inputs = torch.cat([(tau - 0.5) * 12, (xi - 0.5) * 12, (b1 - 0.5) * 12, (b2 - 0.5) * 12], dim=1)
    return inputs, labels, tau


def training_step(model, batch):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)

    def step():
        inputs, labels, tau = batch()
        loss = empl_loss(model(inputs), labels, tau)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return step


def make_case(name):
    nn = torch.nn
    if name == "toy_step":
        model = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.BatchNorm1d(128), nn.Linear(128, 128), nn.ReLU(),
                              nn.BatchNorm1d(128), nn.Linear(128, 5), nn.Softmax(dim=1))
        return training_step(model, toy_batch)
    if name == "bimodal_step":
        model = nn.Sequential(nn.Linear(4, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10),
                              nn.Softmax(dim=1))
        return training_step(model, bimodal_batch)
    if name == "linear_fwd_bwd":
        layer = nn.Linear(128, 128)
        x = torch.full((B, 128), 0.5, requires_grad=True)
        seed = torch.full((B, 128), 1e-3)

        def step():
            layer(x).backward(seed)
        return step
    if name == "empl":
        pred = torch.rand(B, 18).mul(0.9).add(0.1).requires_grad_()
        target = torch.rand(B, 18).mul(0.9).add(0.1)
        target = target / target.sum(dim=1, keepdim=True)
        tau = torch.rand(B, 1)

        def step():
            empl_loss(pred, target, tau).backward()
        return step
    raise SystemExit(f"torch_bench: unknown --case '{name}'")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    step = make_case(args.case)
    for _ in range(20):
        step()
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"case={args.case} threads={args.threads} median_ms={times[len(times) // 2]:.4f} "
          f"p10_ms={times[len(times) // 10]:.4f} p90_ms={times[len(times) * 9 // 10]:.4f} rss_mb={rss:.1f}")


if __name__ == "__main__":
    main()
