#!/usr/bin/python3
# Rebuilds L~ from `gamma_ray graph`'s nodes.npy with healpy and scipy (independent code) and
# compares it with the CSR files.  Usage: /usr/bin/python3 check_gamma_ray_graph.py DIR NSIDE
import sys
import healpy, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla

folder, nside = sys.argv[1], int(sys.argv[2])
nodes = np.load(folder + "/nodes.npy")
ours = sp.csr_matrix((np.load(folder + "/laplacian_data.npy"), np.load(folder + "/laplacian_indices.npy"),
                      np.load(folder + "/laplacian_indptr.npy")), shape=(len(nodes), len(nodes)))
kw = {32: 0.025, 64: 0.01228, 128: 0.00614, 256: 0.00307}.get(nside, np.exp(-1.00258726 * np.log(nside) - 0.22340667))
position = {p: i for i, p in enumerate(nodes)}
x = np.array(healpy.pix2vec(nside, nodes, nest=True)).T
rows, cols, weights = [], [], []
for i, p in enumerate(nodes):
    for q in healpy.get_all_neighbours(nside, p, nest=True):
        if q >= 0 and q in position:
            j = position[q]
            rows.append(i); cols.append(j)
            weights.append(np.exp(-np.log(2) * np.sum((x[i] - x[j]) ** 2) / kw ** 2))
w = sp.csr_matrix((weights, (rows, cols)), shape=ours.shape)
d = np.asarray(w.sum(axis=1)).ravel()
inv = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0)
lap = sp.identity(len(nodes)) - sp.diags(inv) @ w @ sp.diags(inv)
lmax = sla.eigsh(lap, k=1, which="LA", return_eigenvectors=False)[0] if len(nodes) > 2 else np.linalg.eigvalsh(lap.toarray())[-1]
theirs = lap * (1.5 / (1.02 * lmax)) - sp.identity(len(nodes))
print("nodes", len(nodes), "nnz", ours.nnz, "max |ours - theirs|", abs(ours - theirs).max(),
      "pattern equal", (ours != 0).sum() == ((theirs != 0) + (ours != 0)).sum())
