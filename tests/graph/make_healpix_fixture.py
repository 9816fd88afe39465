#!/usr/bin/python3
# Makes healpix_fixture.txt, the independent reference for tests/graph/test_healpix.cpp: pixel
# centres and neighbours in NESTED order at nside 1, 2, 4, 8, and discs, from Debian's
# python3-healpy (1.16.1 when made). Run once from this folder:  /usr/bin/python3 make_healpix_fixture.py
# Lines:  pixel <nside> <p> <x> <y> <z> <8 neighbours SW W NW N NE E SE S, -1 if none>
#         disc <nside> <theta> <phi> <radius> <count> <NESTED pixels ascending>
import healpy
import numpy as np

lines = []
for nside in (1, 2, 4, 8):
    pixels = np.arange(healpy.nside2npix(nside))
    x, y, z = healpy.pix2vec(nside, pixels, nest=True)
    theta, phi = healpy.pix2ang(nside, pixels, nest=True)
    neighbours = healpy.get_all_neighbours(nside, theta, phi, nest=True)  # [8, npix]
    for p in pixels:
        lines.append("pixel %d %d %.17g %.17g %.17g %s" % (
            nside, p, x[p], y[p], z[p], " ".join(str(int(n)) for n in neighbours[:, p])))
    # The Galactic centre's disc of GAMMA_RAY.md (theta 90 deg, phi 0, 20 deg) and an off-equator one.
    for theta0, phi0, radius in ((np.pi / 2, 0.0, np.radians(20.0)), (0.7, 2.1, np.radians(35.0))):
        vec = healpy.ang2vec(theta0, phi0)
        disc = np.sort(healpy.query_disc(nside, vec, radius, inclusive=False, nest=True))
        lines.append("disc %d %.17g %.17g %.17g %d %s" % (
            nside, theta0, phi0, radius, len(disc), " ".join(str(int(p)) for p in disc)))

with open("healpix_fixture.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
