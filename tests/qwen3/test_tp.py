"""Tensor-parallel decode (examples/qwen3/tp.py): the sharding of each weight, the distributed
greedy pick's tie rule, and generate.py --tp 2 in two processes (gloo, torchrun's environment)
giving the single process's tokens, on the interpreter (and, marked gpu, on one GPU)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402
import decode_kernels as k  # noqa: E402
import footprint as fp  # noqa: E402
from config import load_config  # noqa: E402
from layers import SHARDS, ShardError  # noqa: E402
from model import Engine, shard  # noqa: E402
from tp import TensorParallel  # noqa: E402
from weights import load_weights  # noqa: E402

import cutile as ct  # noqa: E402


class _NoComm:
    """A rank built alone (shapes only): any collective would be a bug of the test."""

    def all_reduce(self, t: ct.HostTensor) -> None:
        raise AssertionError("no collective expected")

    def all_gather(self, out: ct.HostTensor, t: ct.HostTensor) -> None:
        raise AssertionError("no collective expected")

    def capturable(self) -> bool:
        return False


def _make(root: Path, family: str, tied: bool, stored: str = "F32",
          **changes: Any) -> Path:
    base = checkpoint.TINY_LLAMA if family == "llama" else checkpoint.TINY
    cfg = {**base, "tie_word_embeddings": tied, **changes}
    t = checkpoint.random_tensors(cfg, 5)
    if tied:  # smaller embedding rows: the layers, not the last token, steer the walk
        t["model.embed_tokens.weight"] = t["model.embed_tokens.weight"] * 0.3
    checkpoint.write(root, cfg, t, stored)
    return root


def _ranks(root: Path, world: int) -> list[Engine]:
    c = load_config(root)
    w = load_weights(root, c)
    return [Engine(c, w, tp=TensorParallel(r, world, _NoComm())) for r in range(world)]


# -- the sharding -----------------------------------------------------------------------------
@pytest.mark.parametrize("world, tied, vocab", [(2, False, 1000), (2, True, 997), (4, False, 997)])
def test_each_rank_holds_its_shard(tmp_path: Path, world: int, tied: bool, vocab: int) -> None:
    """Whole heads of q, k and v per rank (columns), o and down split by their inputs, gate/up
    by theirs outputs, the vocabulary in ceil(V / world) rows (the last rank's padded with
    zeros); the pieces put back together are the checkpoint's matrices."""
    changes = {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 16,
               "vocab_size": vocab}
    root = _make(tmp_path, "qwen3", tied, **changes)
    c = load_config(root)
    w = load_weights(root, c)
    ranks = _ranks(root, world)
    d, h, i = 16, c.hidden_size, c.intermediate_size
    ch = -(-vocab // world)
    for m in ranks:
        assert m.heads == (8 // world, 4 // world)
        layer = m.layers[0]
        assert layer.qkv.w.shape == ((8 + 2 * 4) // world * d, h)
        assert layer.o.w.shape == (h, 8 * d // world)
        assert layer.gate.w.shape == layer.up.w.shape == (i // world, h)
        assert layer.down.w.shape == (h, i // world)
        assert m.lm_head.w.shape == (ch, h) and m.embed.shape == (vocab, h)
        assert m.widths["qkv"] == layer.qkv.n and m.widths["act"] == i // world
    for name in ("q", "k", "v", "o", "gate", "up", "down"):
        full = getattr(w.layers[1], name)
        pieces = [shard(name, full, c, TensorParallel(r, world)) for r in range(world)]
        axis = SHARDS[name].axis
        assert np.array_equal(np.concatenate(pieces, axis=axis), full)
    qkv = ranks[-1].layers[1].qkv.w.numpy()  # the last rank's heads: q, then k, then v
    q_rows = 8 // world * d
    assert np.array_equal(qkv[:q_rows], w.layers[1].q[-q_rows:])
    assert np.array_equal(qkv[-(4 // world) * d:], w.layers[1].v[-(4 // world) * d:])
    heads = np.concatenate([m.lm_head.w.numpy() for m in ranks])
    assert np.array_equal(heads[:vocab], w.lm_head) and not heads[vocab:].any()


@pytest.mark.parametrize("world, tied", [(2, True), (4, False)])
def test_footprint_is_one_ranks(tmp_path: Path, world: int, tied: bool) -> None:
    """With --tp the memory check estimates one rank: its weights are exactly the device
    tensors the rank's engine holds (tied: a copy of its rows of the embedding), its cache
    its kv heads', and the buffers cover the rest."""
    root = _make(tmp_path, "qwen3", tied, num_attention_heads=8, num_key_value_heads=4,
                 head_dim=16, vocab_size=997)
    c = load_config(root)
    for m in _ranks(root, world):
        est = fp.estimate(c, "float32", "float32", 5, 300, world=world)
        checkpoint.check_footprint(m, est)
    whole = fp.estimate(c, "float32", "float32", 5, 300)
    assert est.device < whole.device and est.host_weights == whole.host_weights


@pytest.mark.parametrize("changes, words", [
    ({"num_key_value_heads": 2}, "num_key_value_heads (2) to be a multiple of 4"),
    ({"num_attention_heads": 6, "num_key_value_heads": 6, "head_dim": 16},
     "num_attention_heads (6) to be a multiple of 4"),
    ({"intermediate_size": 130, "num_key_value_heads": 4}, "intermediate_size (130)")])
def test_a_model_that_does_not_split_is_an_error(tmp_path: Path, changes: dict[str, Any],
                                                  words: str) -> None:
    root = _make(tmp_path, "qwen3", False, **changes)
    with pytest.raises(ShardError, match=words.replace("(", r"\(").replace(")", r"\)")):
        _ranks(root, 4)


def _sharded_pick(logits: np.ndarray, world: int, bn: int = 16) -> int:
    """The distributed greedy pick of `logits` over `world` ranks, the collectives played by
    concatenation: each rank's real lm_head kernel on its slice (x = e0, so the logits are the
    weights' first column), then greedy_next_sharded over every rank's block maxima."""
    v = logits.size
    ch = -(-v // world)
    tops, ats = [], []
    for r in range(world):
        piece = logits[r * ch:(r + 1) * ch]
        w = np.zeros((ch, 16), np.float32)
        w[:piece.size, 0] = piece
        x = np.zeros((1, 16), np.float32)
        x[0, 0] = 1
        nb = -(-ch // bn)
        y, top, top_at = ct.zeros((1, ch), ct.f32), ct.zeros((1, nb), ct.f32), \
            ct.zeros((1, nb), ct.i32)
        y, top, top_at, *_ = k.lm_head_f32(
            y.partition((1, bn)), top.partition((1, 1)), top_at.partition((1, 1)),
            ct.from_numpy(x), ct.from_numpy(w), V=piece.size, BK=16, LAT=0).sync()
        tops.append(top.unpartition().numpy())
        ats.append(top_at.unpartition().numpy())
    n = len(tops) * tops[0].size
    history = ct.zeros((4,), ct.i32)
    hist, *_ = k.greedy_next_sharded(
        history.partition((4,)), ct.zeros((1,), ct.i32).partition((1,)),
        ct.from_numpy(np.array([0], np.int32)), ct.from_numpy(np.concatenate(tops, 1)),
        ct.from_numpy(np.concatenate(ats, 1)), NB=n, NBR=tops[0].size, CH=ch, V=v,
        BV=1 << (n - 1).bit_length()).sync()
    return int(hist.unpartition().numpy()[1])


@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("case", ["ties across ranks", "ties in one rank", "at the edges",
                                  "all negative", "random"])
def test_the_distributed_pick_is_np_argmax(world: int, case: str) -> None:
    """Every rank's candidates gathered, the lowest global index among the largest wins: the
    token np.argmax picks over the whole vocabulary (997: the last rank's slice is short)."""
    rng = np.random.default_rng(world)
    logits = rng.standard_normal(997).astype(np.float32)
    if case == "ties across ranks":
        logits[[700, 20, 998 // world, 996]] = 9.0  # 20 on rank 0 wins
    elif case == "ties in one rank":
        logits[[996, 995, 990]] = 9.0
    elif case == "at the edges":
        ch = -(-997 // world)
        logits[[ch, ch - 1, 996]] = 7.5  # rank 0's last row wins over rank 1's first
    elif case == "all negative":
        logits = -np.abs(logits) - 100.0
        logits[[996, 500]] = -100.0
    assert _sharded_pick(logits, world) == int(np.argmax(logits))


# -- two processes ----------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _generate(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), *args, "--json"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _torchrun(args: list[str], world: int, base: dict[str, str]) -> list[str]:
    """generate.py in `world` processes with torchrun's environment; each one's stdout."""
    env = {**base, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()),
           "WORLD_SIZE": str(world)}
    procs = [subprocess.Popen([sys.executable, str(ENGINE / "generate.py"), *args, "--json",
                               "--tp", str(world)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env={**env, "RANK": str(r), "LOCAL_RANK": str(r)})
             for r in range(world)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        outs.append(out)
    return outs


CASES: dict[str, tuple[str, bool, str, list[str]]] = {  # family, tied, stored, flags
    "qwen3-untied-greedy": ("qwen3", False, "F32", ["--greedy"]),
    "qwen3-untied-greedy-fused": ("qwen3", False, "F32", ["--greedy", "--fuse-norms"]),
    "qwen3-tied-bf16-sampled": ("qwen3", True, "BF16",
                                ["--do-sample", "--temperature", "1.0", "--top-k", "0",
                                 "--seed", "7", "--dtype", "bfloat16"]),
    "llama-untied-greedy-eager-step-prefill": ("llama", False, "F32",
                                               ["--greedy", "--eager", "--step-prefill"]),
    "llama-tied-sampled": ("llama", True, "F32",
                           ["--do-sample", "--temperature", "0.8", "--top-k", "50",
                            "--top-p", "0.9", "--seed", "3"]),
}


def _same_tokens_in_two_processes(tmp_path: Path, case: str, env: dict[str, str],
                                  backend: str) -> None:
    pytest.importorskip("torch")
    family, tied, stored, flags = CASES[case]
    root = _make(tmp_path, family, tied, stored, vocab_size=997)
    args = ["--model", str(root), "--prompt-ids", "3,14,159,265,358,979", "--max-new-tokens",
            "24", *flags]
    one = _generate(args, env)
    outs = _torchrun([*args, "--tp-backend", backend], 2, env)
    assert outs[1] == ""  # rank 1 stays quiet
    two = json.loads(outs[0])
    assert len(one["tokens"]) == 24 and two["tokens"] == one["tokens"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_two_processes_give_one_process_tokens(tmp_path: Path, case: str) -> None:
    """The issue's CI check: gloo on the interpreter, Qwen3 and Llama, tied and untied heads,
    greedy and sampled, graph-style and eager steps, batched and step prefill."""
    _same_tokens_in_two_processes(tmp_path, case, {**os.environ,
                                                   "CUTILE_BACKEND": "interpreter"}, "gloo")


@pytest.mark.gpu
@pytest.mark.parametrize("case", ["qwen3-untied-greedy", "qwen3-tied-bf16-sampled"])
def test_two_processes_on_one_gpu(tmp_path: Path, case: str) -> None:
    """The issue's H200 check: both ranks on the one GPU (CUTILE_DEVICE 0), gloo on device
    tensors shared through DLPack and ordered on cutile's stream."""
    env = {**os.environ, "CUTILE_BACKEND": "cuda", "CUTILE_DEVICE": "0"}
    _same_tokens_in_two_processes(tmp_path, case, env, "gloo")


def test_tp_needs_torchrun_processes(tmp_path: Path) -> None:
    root = _make(tmp_path, "qwen3", False)
    env = {k: v for k, v in os.environ.items() if k != "WORLD_SIZE"}
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model", str(root),
                           "--prompt-ids", "1,2", "--tp", "2"], capture_output=True, text=True,
                          env={**env, "CUTILE_BACKEND": "interpreter"}, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--tp 2 needs 2 processes started by torchrun --nproc-per-node 2" in done.stderr


def test_collectives_in_a_graph_need_nccl(tmp_path: Path) -> None:
    """A graph would replay the launches without the host's collectives: refused unless the
    group is NCCL on CUDA (gloo here), never a silently wrong step."""
    root = _make(tmp_path, "qwen3", False)
    m = _ranks(root, 2)[0]
    m.reset([1, 2, 3], 4)
    with pytest.raises(ValueError, match=r"--tp-graph\) need NCCL on the CUDA backend"):
        m.capture(graph_collectives=True)
