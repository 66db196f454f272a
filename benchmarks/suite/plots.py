"""PNG plots with matplotlib when it is importable; otherwise a note says why there are none."""

from __future__ import annotations

import math
from pathlib import Path

from .records import Record, best

PLOTTED_ROWS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14, 15)
TITLES = {1: "vector add", 2: "GEMM bf16", 3: "softmax", 4: "RMSNorm", 5: "LayerNorm",
          6: "attention fwd", 7: "decode GEMV", 11: "GEMM fp8",
          12: "attention bwd", 13: "cross-entropy fwd+bwd f32", 14: "softmax, vocab rows f32",
          15: "split-K GEMM bf16"}


def write(out_dir: Path, records: list[Record]) -> tuple[list[Path], str]:
    """Writes suite.png (one panel per row: each implementation's best variant per shape)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        return [], f"no plots: matplotlib is not importable ({exc.__class__.__name__})"
    rows = [r for r in PLOTTED_ROWS if any(x.row == r and x.ok for x in records)]
    if not rows:
        return [], "no plots: no timed rows"
    cols = 2
    fig, axes = plt.subplots(math.ceil(len(rows) / cols), cols, squeeze=False,
                             figsize=(7 * cols, 3.6 * math.ceil(len(rows) / cols)))
    bw = best([r for r in records if r.row == 0 and r.metric_name == "TB/s"])
    tf = best([r for r in records if r.row == 0 and r.metric_name == "TFLOP/s"])
    for ax, row in zip(axes.flat, rows, strict=False):
        recs = [r for r in records if r.row == row and r.ok]
        shapes: list[str] = []
        for r in recs:
            label = f"{r.shape} {r.dtype}" if row == 1 else r.shape
            if label not in shapes:
                shapes.append(label)
        impls = sorted({r.impl for r in recs}, key=lambda i: (i != "cutile", i))
        width = 0.8 / max(1, len(impls))
        for k, impl in enumerate(impls):
            ys = []
            for label in shapes:
                pick = best([r for r in recs if r.impl == impl and
                             (f"{r.shape} {r.dtype}" if row == 1 else r.shape) == label])
                ys.append(pick.metric if pick and pick.metric is not None else 0.0)
            ax.bar([i + k * width for i in range(len(shapes))], ys, width, label=impl)
        unit = recs[0].metric_name
        ceiling = bw if unit == "TB/s" else tf
        if ceiling is not None and ceiling.metric is not None:
            ax.axhline(ceiling.metric, color="k", linestyle="--", linewidth=1,
                       label="BW*" if unit == "TB/s" else "TF*")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(shapes))])
        ax.set_xticklabels(shapes, rotation=20, ha="right", fontsize=7)
        ax.set_title(f"#{row} {TITLES[row]}")
        ax.set_ylabel(unit)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    fig.tight_layout()
    path = out_dir / "suite.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path], ""
