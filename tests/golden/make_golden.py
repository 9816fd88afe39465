"""Golden numbers from PyTorch, an implementation independent of empl, for tests/golden/test_golden.cpp.

Run from the repository's root (the fixtures are committed; run again only to change them):

    /usr/bin/python3 tests/golden/make_golden.py

It writes small float32 .npy files into tests/golden/toy_step/ and tests/golden/empl/:

toy_step: one training step of the toy urn network (apps/toy_urn/toy_model.cpp at hidden = 8:
  Linear 2->8, ReLU -> BatchNorm, Linear 8->8, ReLU -> BatchNorm, Linear 8->5, softmax) on a fixed
  batch of 6 with the EMPL at per-sample tau: the inputs, every parameter (named as empl names
  them, weights stored [F_in, F_out]), the loss, every parameter's gradient, and every parameter
  after one Adam step (lr 1e-3, betas 0.9/0.999, eps 1e-7: Keras's defaults, which empl uses).
bimodal_gauss: one training step of the bimodal network (apps/bimodal/bimodal_model.cpp at hidden
  = 8: Linear 4->8, ReLU, Linear 8->8, ReLU, Linear 8->20) with the Gaussian NLL baseline on the
  cumulative histogram (losses/gaussian_nll.hpp: logits | log-variances, mu = cumsum(softmax),
  log-variances clipped below at -15), on a fixed batch of 5: the same files as toy_step.
empl: the EMPL and the smoothed EMPL (alpha = 0.05) of hand-made histograms, with their gradients
  with respect to the prediction. Predicted rows sum to 1.1, so that no cumulative difference is 0
  (the kink of the plain loss, where a subgradient is a choice).
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float32)
here = os.path.dirname(os.path.abspath(__file__))


def save(folder, name, array):
    os.makedirs(os.path.join(here, folder), exist_ok=True)
    np.save(os.path.join(here, folder, name + ".npy"), np.ascontiguousarray(array, dtype=np.float32))


def empl(predicted, target, tau, alpha):
    """(1/(B*N)) sum of the pinball loss of the cumulative sums, plain or smoothed (paper eq. 9)."""
    delta = torch.cumsum(predicted, 1) - torch.cumsum(target, 1)
    if alpha == 0.0:
        terms = ((delta >= 0).to(delta.dtype) - tau) * delta
    else:
        # alpha*softplus(delta/alpha), written with logaddexp: exact for every delta.
        terms = -tau * delta + alpha * torch.logaddexp(delta / alpha, torch.zeros_like(delta))
    return terms.mean()


def toy_step():
    rng = np.random.RandomState(15)
    batch, hidden, bins = 6, 8, 5
    tau = rng.uniform(0.05, 0.95, size=(batch, 1)).astype(np.float32)
    u = rng.uniform(0, 1, size=(batch, 1)).astype(np.float32)
    inputs = np.concatenate([(tau - 0.5) * 12, (u - 0.5) * 12], axis=1).astype(np.float32)
    labels = rng.dirichlet(np.ones(bins), size=batch).astype(np.float32)
    labels /= labels.sum(1, keepdims=True)
    params = {
        "0.weight": rng.uniform(-0.8, 0.8, size=(2, hidden)),
        "0.bias": rng.uniform(-0.1, 0.1, size=(1, hidden)),
        "1.weight": rng.uniform(0.8, 1.2, size=(hidden,)),
        "1.bias": rng.uniform(-0.1, 0.1, size=(hidden,)),
        "2.weight": rng.uniform(-0.6, 0.6, size=(hidden, hidden)),
        "2.bias": rng.uniform(-0.1, 0.1, size=(1, hidden)),
        "3.weight": rng.uniform(0.8, 1.2, size=(hidden,)),
        "3.bias": rng.uniform(-0.1, 0.1, size=(hidden,)),
        "4.weight": rng.uniform(-0.6, 0.6, size=(hidden, bins)),
        "4.bias": rng.uniform(-0.1, 0.1, size=(1, bins)),
    }
    leaves = {k: torch.tensor(v.astype(np.float32), requires_grad=True) for k, v in params.items()}
    x = torch.tensor(inputs)

    def bn(h, name):
        return F.batch_norm(F.relu(h), None, None, leaves[name + ".weight"], leaves[name + ".bias"], training=True,
                            momentum=0.1, eps=1e-5)

    h = bn(x @ leaves["0.weight"] + leaves["0.bias"], "1")
    h = bn(h @ leaves["2.weight"] + leaves["2.bias"], "3")
    predicted = torch.softmax(h @ leaves["4.weight"] + leaves["4.bias"], dim=1)
    loss = empl(predicted, torch.tensor(labels), torch.tensor(tau), 0.0)
    loss.backward()
    save("toy_step", "inputs", inputs)
    save("toy_step", "labels", labels)
    save("toy_step", "tau", tau)
    save("toy_step", "loss", np.array(loss.item()))
    for name, leaf in leaves.items():
        save("toy_step", "param_" + name, leaf.detach().numpy())
        save("toy_step", "grad_" + name, leaf.grad.numpy())
    adam = torch.optim.Adam(list(leaves.values()), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
    adam.step()
    for name, leaf in leaves.items():
        save("toy_step", "after_" + name, leaf.detach().numpy())


def bimodal_gauss_step():
    rng = np.random.RandomState(16)
    batch, hidden, bins = 5, 8, 10
    inputs = rng.uniform(-1, 1, size=(batch, 4)).astype(np.float32)
    labels = rng.dirichlet(np.ones(bins), size=batch).astype(np.float32)
    labels /= labels.sum(1, keepdims=True)
    params = {
        "0.weight": rng.uniform(-0.7, 0.7, size=(4, hidden)),
        "0.bias": rng.uniform(-0.1, 0.1, size=(1, hidden)),
        "2.weight": rng.uniform(-0.6, 0.6, size=(hidden, hidden)),
        "2.bias": rng.uniform(-0.1, 0.1, size=(1, hidden)),
        "4.weight": rng.uniform(-0.6, 0.6, size=(hidden, 2 * bins)),
        "4.bias": rng.uniform(-0.1, 0.1, size=(1, 2 * bins)),
    }
    # One log-variance far below the clip, so that the clip's zero gradient is compared too.
    params["4.bias"][0, bins + 3] = -40.0
    leaves = {k: torch.tensor(v.astype(np.float32), requires_grad=True) for k, v in params.items()}
    h = F.relu(torch.tensor(inputs) @ leaves["0.weight"] + leaves["0.bias"])
    h = F.relu(h @ leaves["2.weight"] + leaves["2.bias"])
    out = h @ leaves["4.weight"] + leaves["4.bias"]
    mean = torch.cumsum(torch.softmax(out[:, :bins], dim=1), 1)
    log_variance = torch.clamp(out[:, bins:], min=-15.0)
    loss = (0.5 * (log_variance + (torch.cumsum(torch.tensor(labels), 1) - mean) ** 2 * torch.exp(-log_variance))).mean()
    loss.backward()
    save("bimodal_gauss", "inputs", inputs)
    save("bimodal_gauss", "labels", labels)
    save("bimodal_gauss", "loss", np.array(loss.item()))
    for name, leaf in leaves.items():
        save("bimodal_gauss", "param_" + name, leaf.detach().numpy())
        save("bimodal_gauss", "grad_" + name, leaf.grad.numpy())
    adam = torch.optim.Adam(list(leaves.values()), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
    adam.step()
    for name, leaf in leaves.items():
        save("bimodal_gauss", "after_" + name, leaf.detach().numpy())


def empl_histograms():
    # Three rows of four bins, each an ordinary shape: mass early, mass late, two modes.
    target = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [0.4, 0.1, 0.1, 0.4]], dtype=np.float32)
    predicted = np.array([[0.35, 0.25, 0.3, 0.2], [0.1, 0.2, 0.3, 0.5], [0.3, 0.3, 0.3, 0.2]], dtype=np.float32)
    tau = np.array([[0.1], [0.5], [0.9]], dtype=np.float32)
    save("empl", "predicted", predicted)
    save("empl", "target", target)
    save("empl", "tau", tau)
    for alpha, suffix in ((0.0, "plain"), (0.05, "smoothed")):
        p = torch.tensor(predicted, requires_grad=True)
        loss = empl(p, torch.tensor(target), torch.tensor(tau), alpha)
        loss.backward()
        save("empl", "loss_" + suffix, np.array(loss.item()))
        save("empl", "grad_" + suffix, p.grad.numpy())


toy_step()
bimodal_gauss_step()
empl_histograms()
