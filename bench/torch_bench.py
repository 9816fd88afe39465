#!/usr/bin/python3
"""PyTorch's side of bench/compare: the same workloads as bench/empl_bench.cpp, given PyTorch's
best: batches generated with torch itself, no Python-level work in the loop beyond the step, the
thread count set for torch (and, by bench/compare, for its OpenBLAS with OMP_WAIT_POLICY=PASSIVE).

    /usr/bin/python3 bench/torch_bench.py --case toy_step --threads 1 --reps 200

prints  case=<name> threads=<n> median_ms=<m> p10_ms=<a> p90_ms=<b> rss_mb=<peak>
"""
import argparse
import os
import resource
import subprocess
import tempfile
import time

import numpy as np

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


def rescaled_laplacian(nside):
    """L~ of the level at nside, as empl builds it: written by build/gamma_ray graph, read back as a
    torch sparse COO matrix (the format DeepSphere-pytorch uses)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([os.path.join(repo, "build", "gamma_ray"), "graph", "--nside", str(nside), "--out", folder,
                        "--quiet"], check=True)
        indptr, indices = np.load(folder + "/laplacian_indptr.npy"), np.load(folder + "/laplacian_indices.npy")
        data = np.load(folder + "/laplacian_data.npy")
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    v = len(indptr) - 1
    return torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, indices])), torch.from_numpy(data), (v, v)).coalesce()


def deepsphere_cheb_conv(laplacian, inputs, weight):
    """Chebyshev convolution the DeepSphere-pytorch way: x [B, V, Fin] laid out as [V, Fin*B], one
    torch.sparse.mm per term, the terms stacked and permuted to [B*V, Fin*K], one dense product."""
    batch, nodes, f_in = inputs.shape
    order = weight.shape[0] // f_in
    x0 = inputs.permute(1, 2, 0).contiguous().view(nodes, f_in * batch)
    terms = [x0]
    if order > 1:
        x1 = torch.sparse.mm(laplacian, x0)
        terms.append(x1)
        for _ in range(2, order):
            x2 = 2 * torch.sparse.mm(laplacian, x1) - x0
            terms.append(x2)
            x0, x1 = x1, x2
    stacked = torch.stack(terms).view(order, nodes, f_in, batch).permute(3, 1, 2, 0).contiguous()
    return stacked.view(batch * nodes, f_in * order).matmul(weight).view(batch, nodes, -1)


def make_case(name):
    nn = torch.nn
    if name in ("chebconv_nside64", "chebconv_nside128"):
        laplacian = rescaled_laplacian(64 if name == "chebconv_nside64" else 128)
        nodes = laplacian.shape[0]
        weight = (torch.randn(32 * 6, 32) * 0.1).requires_grad_()
        bias = torch.zeros(32, requires_grad=True)
        x = torch.randn(8, nodes, 32, requires_grad=True)
        seed = torch.full((8, nodes, 32), 1e-3)

        def step():
            (deepsphere_cheb_conv(laplacian, x, weight) + bias).backward(seed)
        return step
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
    for _ in range(5 if args.case.startswith("chebconv") else 20):
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
