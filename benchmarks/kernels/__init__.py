"""cutile kernels the benchmark suite needs beyond those in `examples/` (cutile's DSL)."""
