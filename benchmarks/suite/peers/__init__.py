"""Peer implementations (torch, Triton, cuTile Python) and the glue that runs cutile's kernels."""
