"""Fuzzing cutile: mutated kernels for the checker, random host programs for the interpreter
and random sessions for the language server.

    python -m tests.fuzz --target checker|host|lsp --n 100000 --seed S [--out DIR]

The pytest files here run a small fixed budget of each target (seeded, so CI is reproducible)
plus a regression case for every crash class fuzzing found. A failure is shrunk to a minimal
repro (delta debugging over lines or messages) and written to --out.
"""
