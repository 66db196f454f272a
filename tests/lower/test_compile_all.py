"""Every example and every op family lowers, round-trips through tileirdisasm, and assembles;
three kernels also for sm_80/sm_100/sm_120 at 13.4 and sm_90 at 13.3."""

from __future__ import annotations

import re
import struct
from typing import Any

import pytest
from lower_util import EXAMPLES, ROOT, module, spec_for

from cutile.compiler.bytecode import V13_3, Block, decode, print_module
from cutile.compiler.bytecode.types import TOKEN
from cutile.compiler.compile import compile_kernel, lower_kernel
from cutile.compiler.dsl.orders import col_major, grouped, row_major
from cutile.compiler.toolchain import KernelCompiler

OPS = ROOT / "tests" / "lower" / "op_kernels.py"
EM_CUDA = 190
DISASM_NAMES = {"pow": "fpowf"}  # tileirdisasm's spelling where it differs from the op table

# (file, kernel, consts, spec options)
EXAMPLE_CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("add.py", "add", {"B": 1024}, {}),
    ("saxpy.py", "saxpy", {"B": 2048}, {}),
    ("softmax.py", "softmax", {"BM": 4, "N": 1024}, {}),
    ("gemm.py", "gemm", {"BM": 128, "BN": 128, "BK": 64}, {"order": grouped(8)}),
    ("gemm.py", "gemm_persistent", {"BM": 64, "BN": 64, "BK": 32},
     {"order": grouped(8), "persistent": True}),
    ("layer_norm.py", "layer_norm", {"BM": 2, "N": 1024}, {}),
    ("rms_norm.py", "rms_norm", {"BM": 2, "N": 1024}, {}),
    ("attention.py", "attention", {"BM": 64, "BN": 32, "D": 64, "CAUSAL": True}, {}),
    ("attention.py", "attention", {"BM": 64, "BN": 64, "D": 64, "CAUSAL": False}, {}),
    ("softmax_rows.py", "softmax_rows", {"BN": 1024}, {"slabs": {"out": (1, 32000)}}),
    ("cross_entropy.py", "cross_entropy", {"BN": 1024},
     {"slabs": {"logits": (1, 32000), "loss": (1, 1)}}),
    ("layer_norm_rows.py", "layer_norm_rows", {"BN": 1024},
     {"slabs": {"y": (1, 5000), "mean": (1, 1), "rstd": (1, 1)}}),
    ("embedding.py", "embedding", {"BT": 32, "BD": 128}, {}),
    ("paged_attention.py", "paged_decode", {"G": 4, "D": 64, "PAGE": 16}, {}),
    ("moe_gather.py", "moe_gemm", {"BM": 32, "BN": 64, "BK": 32, "K": 256}, {}),
    ("splitk_gemm.py", "splitk_gemm", {"BM": 64, "BN": 64, "BK": 64, "SPLIT": 4}, {}),
    ("layernorm_backward.py", "layernorm_backward", {"BM": 8, "N": 256}, {}),
]

OP_CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[str]]] = [
    # kernel, consts, spec options, Tile IR ops its text must contain
    ("float_math", {}, {}, ["addf", "subf", "mulf", "fma", "divf", "fpowf", "floor", "remf", "maxf",
                            "minf", "negf", "absf", "exp", "exp2", "log", "log2", "sqrt",
                            "rsqrt", "sin", "cos", "tanh", "ceil", "cmpf", "select"]),
    ("int_math", {}, {}, ["addi", "subi", "muli", "divi", "remi", "andi", "ori", "xori", "shli",
                          "shri", "maxi", "mini", "negi", "absi", "cmpi", "unsigned"]),
    ("casts", {}, {}, ["ftof", "itof", "ftoi", "exti", "trunci", "cmpf", "cmpi"]),
    ("reductions", {}, {}, ["reduce", "scan", "yield"]),
    ("shapes", {}, {}, ["permute", "reshape", "broadcast", "cat", "iota"]),
    ("matmuls", {}, {}, ["mmaf", "mmai", "fast_acc"]),
    ("doubles", {}, {}, ["mmaf", "f64"]),
    ("control", {"B": 128}, {}, ["loop", "break", "continue", "if", "yield"]),
    ("mut_roundtrip", {}, {}, ["for", "iter_values"]),
    ("debug", {}, {}, ["print", "assert"]),
    ("dependent", {}, {}, ["gdc_wait_tko", "gdc_launch_dependents_tko"]),
    ("partitions", {}, {}, ["get_index_space_shape", "get_num_tile_blocks", "for"]),
    ("cube", {}, {"order": col_major}, ["remi", "divi", "get_index_space_shape"]),
    ("hinted", {}, {}, ["occupancy = 2", "num_cta_in_cga = 1"]),
    ("slabs", {}, {"slabs": {"w": (1, 1000)}}, ["offset", "load_ptr_tko", "store_ptr_tko"]),
]


def check_cubin(cubin: bytes, kernel: str) -> None:
    assert cubin[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", cubin, 18)[0] == EM_CUDA
    assert kernel.encode() + b"\x00" in cubin


def _ops_in(text: str) -> set[str]:
    return set(re.findall(r"\b([a-z_][a-z0-9_]*)\b", text))


def _decoded_ops(blocks: list[Block]) -> set[str]:
    names: set[str] = set()
    for blk in blocks:
        for op in blk.ops:
            names.add(op.name)
            names |= _decoded_ops(op.regions)
    return names


def _roundtrip(bytecode: bytes, tileir: str, name: str) -> None:
    """Our decoder and tileirdisasm read the same module: the same entry and every op we
    wrote (bar the implicit return) shows up in tileirdisasm's text."""
    mod = decode(bytecode)
    assert [f.name for f in mod.functions] == [name] and f"entry @{name}(" in tileir
    ops = _decoded_ops([mod.functions[0].body]) - {"return", "print_tko"}
    missing = [op for op in ops if not re.search(rf"\b{DISASM_NAMES.get(op, op)}\b", tileir)]
    assert not missing, missing
    assert print_module(mod).count("\n") > 3


@pytest.mark.parametrize(("file", "name", "consts", "opts"), EXAMPLE_CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(EXAMPLE_CASES)])
def test_examples_sm90(compiler: KernelCompiler, file: str, name: str, consts: dict[str, Any],
                       opts: dict[str, Any]) -> None:
    info = module(EXAMPLES / file)
    c = compile_kernel(info, name, spec_for(info, name, consts, **opts), compiler=compiler)
    check_cubin(c.cubin, name)
    _roundtrip(c.bytecode, c.tileir, name)


@pytest.mark.parametrize(("name", "consts", "opts", "expect"), OP_CASES,
                         ids=[c[0] for c in OP_CASES])
def test_op_families(compiler: KernelCompiler, name: str, consts: dict[str, Any],
                     opts: dict[str, Any], expect: list[str]) -> None:
    info = module(OPS)
    c = compile_kernel(info, name, spec_for(info, name, consts, **opts), compiler=compiler)
    check_cubin(c.cubin, name)
    _roundtrip(c.bytecode, c.tileir, name)
    words = _ops_in(c.tileir)
    missing = [e for e in expect if e not in words and e not in c.tileir]
    assert not missing, f"{missing} not in:\n{c.tileir}"


MULTI = [("add.py", "add", {"B": 1024}, {}),
         ("softmax.py", "softmax", {"BM": 4, "N": 1024}, {}),
         ("gemm.py", "gemm", {"BM": 64, "BN": 64, "BK": 32}, {"order": grouped(4)})]
TARGETS = [("13.4", "sm_80"), ("13.4", "sm_100"), ("13.4", "sm_120"), ("13.3", "sm_90")]


@pytest.mark.parametrize(("version", "arch"), TARGETS, ids=[f"{v}-{a}" for v, a in TARGETS])
@pytest.mark.parametrize(("file", "name", "consts", "opts"), MULTI, ids=[m[1] for m in MULTI])
def test_other_targets(compiler: KernelCompiler, file: str, name: str, consts: dict[str, Any],
                       opts: dict[str, Any], version: str, arch: str) -> None:
    info = module(EXAMPLES / file)
    want = V13_3 if version == "13.3" else None
    c = compile_kernel(info, name, spec_for(info, name, consts, arch=arch, **opts),
                       compiler=compiler, want=want)
    assert c.key.bytecode == version and c.key.arch == arch
    assert c.bytecode[8:10] == bytes([13, int(version.split(".")[1])])
    check_cubin(c.cubin, name)


def test_gemm_sm90_uses_tma_only_with_alignment_facts(compiler: KernelCompiler) -> None:
    info = module(EXAMPLES / "gemm.py")
    consts = {"BM": 128, "BN": 128, "BK": 64}
    good = compile_kernel(info, "gemm", spec_for(info, "gemm", consts, order=grouped(8)),
                          compiler=compiler, remarks="all")
    assert "TMA Load" in good.log and "TMA Store" in good.log, good.log[:2000]
    assert "Tensor-core SM90" in good.log
    bad = compile_kernel(info, "gemm", spec_for(info, "gemm", consts, align=2,
                                                order=grouped(8)),
                         compiler=compiler, remarks="memory")
    assert "TMA Load" not in bad.log


def test_default_order_uses_block_ids_and_persistent_loops(compiler: KernelCompiler) -> None:
    info = module(EXAMPLES / "gemm.py")
    consts = {"BM": 64, "BN": 64, "BK": 32}
    plain = lower_kernel(info, "gemm", spec_for(info, "gemm", consts, order=row_major))
    text = print_module(plain.module)
    assert "get_index_space_shape" in text  # the K loop bound
    assert "divi" not in text  # block (x, y) owns tile (x, y): no index arithmetic
    pers = lower_kernel(info, "gemm_persistent", spec_for(
        info, "gemm_persistent", consts, order=grouped(8), persistent=True))
    body = pers.module.functions[0].body
    (loop,) = [op for op in body.ops if op.name == "for"]
    block_ids = next(op for op in body.ops if op.name == "get_tile_block_id")
    num_blocks = next(op for op in body.ops if op.name == "get_num_tile_blocks")
    # for L in range(block_id.x, tile_count, num_blocks.x), carrying c's store token
    assert loop.operands[0] is block_ids.results[0]
    assert loop.operands[2] is num_blocks.results[0]
    assert [r.type for r in loop.results] == [TOKEN]


def test_num_tiles_per_partition_shape() -> None:
    """Two partitions of one tensor with different tiles have their own tile grids."""
    info = module(OPS)
    low = lower_kernel(info, "two_partitions", spec_for(info, "two_partitions", {}))
    shapes = [op for op in low.module.functions[0].body.ops
              if op.name == "get_index_space_shape"]
    views = {id(op.operands[0]) for op in shapes}
    assert len(views) == 2
