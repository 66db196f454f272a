"""The BENCHMARKS.md suite: cutile, torch, Triton and cuTile Python side by side on one GPU.

Run from the repository root: `python -m benchmarks.suite [--quick] [--only NAME] [--out DIR]`;
`--dry-run` builds the plan and checks every cutile kernel without a GPU.
"""
