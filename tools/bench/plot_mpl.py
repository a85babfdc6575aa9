#!/usr/bin/env python3
"""plot_mpl.py POINTS.csv OUT.svg: the matplotlib (Agg) peer of logdown's
{chart} in make bench: one line over every point of a step,loss CSV with
a header row, 720 x 405 as logdown's default."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
fig, ax = plt.subplots(figsize=(7.2, 4.05), dpi=100)
ax.plot(data[:, 0], data[:, 1], linewidth=0.8, label="loss")
ax.set_title("Training loss")
ax.set_xlabel("Step")
ax.set_ylabel("Loss")
ax.legend()
fig.savefig(sys.argv[2])
