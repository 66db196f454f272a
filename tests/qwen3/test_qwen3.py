"""The Qwen3 engine (examples/qwen3) against a NumPy reference on tiny seeded checkpoints, and
(GPU machine, with torch and transformers) against transformers' greedy generate."""

from __future__ import annotations

import json
import os
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
import reference  # noqa: E402
import tuning  # noqa: E402
from config import ConfigError, load_config, parse_config  # noqa: E402
from decode_kernels import (  # noqa: E402
    add_rms_norm,
    argmax_row,
    attention_merge_append,
    decode_attention_new,
    gemv_f32,
    greedy_next,
    lm_head_f32,
    sample_next,
)
from generate import GREEDY, generate  # noqa: E402
from model import Qwen3, Sampling  # noqa: E402
from weights import WeightsError, load_weights  # noqa: E402

import cutile as ct  # noqa: E402
from cutile.compiler import check_source  # noqa: E402
from cutile.compiler.ops.philox import philox4x32, uniform  # noqa: E402

PROMPT = [3, 141, 59, 996]
NEW = 32
# (tie_word_embeddings, shards, stored dtype, engine dtype, KV-cache tile, config changes);
# a cache tile of 16 makes the 36 positions span three tiles of the append and attention loops
CASES = {
    "untied-single-f32": (False, 1, "F32", "float32", 64, {}),
    "tied-sharded-bf16": (True, 3, "BF16", "float32", 16,
                          {"hidden_size": 96, "intermediate_size": 160, "vocab_size": 997}),
    "tied-single-f32-as-bf16": (True, 1, "F32", "bfloat16", 64, {"rope_theta": 1e6}),
    "untied-sharded-bf16-as-bf16": (False, 2, "BF16", "bfloat16", 16, {}),
    # an odd head count (3 query heads over 1 kv head)
    "odd-heads-f32": (False, 1, "F32", "float32", 16,
                      {"num_attention_heads": 3, "num_key_value_heads": 1}),
    # multi-head attention: a kv head per query head (G = 1)
    "mha-f32": (True, 1, "F32", "float32", 16,
                {"num_attention_heads": 4, "num_key_value_heads": 4}),
}


def _make(root: Path, tied: bool, shards: int, stored: str,
          changes: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    cfg = {**checkpoint.TINY, "tie_word_embeddings": tied, **changes}
    seed = sum(map(ord, root.name)) % 97
    tensors = checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, seed), stored, shards)
    return cfg, tensors


@pytest.mark.parametrize("case", sorted(CASES))
def test_greedy_tokens_match_reference(tmp_path: Path, case: str) -> None:
    tied, shards, stored, dtype, cache_tile, changes = CASES[case]
    cfg, tensors = _make(tmp_path / case, tied, shards, stored, changes)
    if dtype == "bfloat16":  # the engine's matrices are bf16: the reference gets the same values
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    c = load_config(tmp_path / case)
    engine = Qwen3(c, load_weights(tmp_path / case, c), dtype, cache_tile)
    got = generate(engine, PROMPT, NEW).tokens
    assert got == reference.greedy(cfg, tensors, PROMPT, NEW, kv_bf16=dtype == "bfloat16")
    assert len(set(got)) > 2  # the walk visits several tokens, not one repeated


@pytest.mark.parametrize("flags", [[], ["--temperature", "0.8", "--top-k", "5", "--top-p", "0.9",
                                    "--seed", "1", "--eager"], ["--kv-dtype", "bfloat16"]])
def test_cli_prints_json(tmp_path: Path, flags: list[str]) -> None:
    _make(tmp_path, False, 1, "F32", {})
    env = {**os.environ, "CUTILE_BACKEND": os.environ.get("CUTILE_BACKEND", "interpreter")}
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model", str(tmp_path),
                           "--prompt-ids", "1,2,3", "--max-new-tokens", "3", "--json", *flags],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"tokens", "prefill_s", "decode_tokens_per_s", "backend",
                        "prompt_tokens", "finish_reason", "sampling"}  # text mode's, no text
    assert len(out["tokens"]) == 3 and out["backend"] == env["CUTILE_BACKEND"]
    assert out["prompt_tokens"] == [1, 2, 3] and out["finish_reason"] == "length"
    assert out["prefill_s"] > 0 and out["decode_tokens_per_s"] > 0


def test_cli_reports_a_bad_token(tmp_path: Path) -> None:
    _make(tmp_path, True, 1, "F32", {})
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model", str(tmp_path),
                           "--prompt-ids", "1,1000", "--max-new-tokens", "1"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CUTILE_BACKEND": "interpreter"})
    assert done.returncode == 2
    assert "token id 1000 is outside the vocabulary (0..999)" in done.stderr


def _engine(root: Path, cache_tile: int = 16, **changes: Any) -> Qwen3:
    _make(root, False, 1, "F32", changes)
    c = load_config(root)
    return Qwen3(c, load_weights(root, c), cache_tile=cache_tile)


@pytest.mark.parametrize("sampling", [Sampling(), Sampling(0.8, 20, 0.9, seed=5)])
def test_graph_and_eager_give_the_same_tokens(tmp_path: Path, sampling: Sampling) -> None:
    engine = _engine(tmp_path)
    graph = generate(engine, PROMPT, 12, sampling).tokens
    assert generate(engine, PROMPT, 12, sampling, eager=True).tokens == graph
    assert len(set(graph)) > 2


@pytest.mark.parametrize(("pdl", "step_prefill"), [("entry", False), ("entry", True),
                                                   ("prefetch", False)])
def test_dependent_launches_give_the_same_tokens(tmp_path: Path, pdl: str, step_prefill: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`pdl=` (every kernel a dependent launch: `.dependent()`, or for "prefetch" the GEMVs'
    explicit forms): the graph and the chains of the batched prefill run their links as
    dependent launches (checked for CT308 at each), with the plain engine's tokens."""
    from cutile.runtime.backends.base import Executable

    plain = _engine(tmp_path)
    c = load_config(tmp_path)
    dependent = Qwen3(c, load_weights(tmp_path, c), cache_tile=16, pdl=pdl)
    want = generate(plain, PROMPT, 10, step_prefill=step_prefill).tokens
    calls: list[int] = []
    enqueue = Executable.enqueue_dependent
    monkeypatch.setattr(Executable, "enqueue_dependent",
                        lambda self, *a: calls.append(1) or enqueue(self, *a))
    assert generate(dependent, PROMPT, 10, step_prefill=step_prefill).tokens == want
    kernels = [ln.kernel for ln in dependent.links]
    assert all(kern.entry_wait or kern.options.get("pdl") for kern in kernels)
    assert any(kern.entry_wait for kern in kernels)
    assert (pdl == "prefetch") == any(kern.__name__.endswith("_pdl") for kern in kernels)
    assert len(calls) >= len(dependent.links) - 1  # the captured step's links, at least


@pytest.mark.parametrize(("dtype", "kv_dtype"), [("float32", "bfloat16"),
                                                ("bfloat16", "float32")])
def test_the_kv_cache_dtype_is_its_own_choice(tmp_path: Path, dtype: str, kv_dtype: str) -> None:
    """float32 matrices over a bfloat16 cache, and bf16 matrices over a float32 cache: the
    reference's tokens with the same roundings (a 16-row cache tile: three tiles of rows)."""
    cfg, tensors = _make(tmp_path, False, 1, "F32", {})
    if dtype == "bfloat16":
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), dtype, 16, kv_dtype=kv_dtype)
    want = reference.greedy(cfg, tensors, PROMPT, NEW, kv_bf16=kv_dtype == "bfloat16")
    assert generate(engine, PROMPT, NEW).tokens == want
    assert engine.buf["k0"].dtype.name == ("bf16" if kv_dtype == "bfloat16" else "f32")


def test_attention_in_parts_gives_the_reference_tokens(tmp_path: Path) -> None:
    """Decode attention split in parts over the cache (an 8-row tile: 16 positions span two),
    merged by the o-projection, with 4 query heads per kv head."""
    cfg, tensors = _make(tmp_path, False, 1, "F32", {"num_attention_heads": 8})
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), cache_tile=8)
    assert generate(engine, PROMPT, 12).tokens == reference.greedy(cfg, tensors, PROMPT, 12)
    assert engine.splits > 1 and c.group == 4


def test_top_k_1_is_greedy_and_a_seed_repeats(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    greedy = generate(engine, PROMPT, 10).tokens
    assert generate(engine, PROMPT, 10, Sampling(1.3, 1, 1.0, seed=3)).tokens == greedy
    hot = [generate(engine, PROMPT, 10, Sampling(2.0, 0, 1.0, seed=s)).tokens for s in (4, 4, 9)]
    assert hot[0] == hot[1] != hot[2] and hot[0] != greedy


def test_a_prompt_token_outside_the_vocabulary_is_an_error(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    with pytest.raises(ValueError, match=r"token id 1000 is outside the vocabulary \(0\.\.999\)"):
        engine.reset([1, 1000], 4)


@pytest.mark.parametrize("pos", [0, 5, 15, 16, 40])
@pytest.mark.parametrize("nh", [6, 4])
def test_attention_with_the_new_token_then_its_append(pos: int, nh: int) -> None:
    """decode_attention_new, then attention_merge_append: each query head's attention row is
    softmax attention over its kv head's cache rows before pos and the new token (q and k
    normed and rotated at pos), in A = 2 parts merged; the merge stores the new key and value
    into row pos of each kv head's cache and nothing else; a position past the cache (16 rows)
    is masked at the slab's edge (the caches are untouched; the engine's cache always holds pos,
    so the attention is compared up to a full cache). G = 3 query heads per kv head (one head
    after another) and G = 2 (loaded at once)."""
    nkv, d, rows, a, eps, theta = 2, 8, 16, 2, 1e-6, 10000.0
    g = nh // nkv
    rng = np.random.default_rng(pos)
    qkv = rng.standard_normal((1, (nh + 2 * nkv) * d)).astype(np.float32)
    qn, kn = (rng.standard_normal(d).astype(np.float32) for _ in range(2))
    kc0 = rng.standard_normal((nkv, rows, d)).astype(np.float32)
    vc0 = rng.standard_normal((nkv, rows, d)).astype(np.float32)
    inv_freq = (1.0 / theta ** (np.arange(0, d, 2) / d)).astype(np.float32)
    t = {n: ct.from_numpy(x) for n, x in (("qkv", qkv), ("qn", qn), ("kn", kn),
                                            ("inv_freq", inv_freq), ("kc", kc0), ("vc", vc0))}
    pos_t = ct.from_numpy(np.array([pos], np.int32))
    parts = (ct.zeros((nh * a, d), ct.f32).partition((1, d)),
             *(ct.zeros((nh * a, 1), ct.f32).partition((1, 1)) for _ in range(2)))
    o, mx, den = decode_attention_new(*parts, t["qkv"], t["qn"], t["kn"], t["inv_freq"],
                                      t["kc"], t["vc"], pos_t, d ** -0.5, eps, NH=nh, NKV=nkv,
                                      G=g, A=a, BN=4).sync()[:3]
    view = (1, nkv, rows, d)
    attn, kc, vc = attention_merge_append(
        ct.zeros((1, nh * d), ct.f32).partition((1, g * d)),
        t["kc"].reshape(view).partition((1, 1, rows, d)),
        t["vc"].reshape(view).partition((1, 1, rows, d)), o.unpartition(), mx.unpartition(),
        den.unpartition(), t["qkv"], t["kn"], t["inv_freq"], pos_t, eps, NH=nh, NKV=nkv, G=g,
        A=a, GROUPED=g == 2).sync()[:3]
    heads = qkv[0].astype(np.float64).reshape(nh + 2 * nkv, d)
    q = reference.rope(reference.rms(heads[:nh], qn, eps), pos, theta)
    k_new = reference.rope(reference.rms(heads[nh:nh + nkv], kn, eps), pos, theta)
    want = np.empty((nh, d))
    for h in range(nh):
        keys = np.vstack([kc0[h // g, :pos], k_new[h // g]])
        vals = np.vstack([vc0[h // g, :pos], heads[nh + nkv + h // g]])
        w = np.exp(keys @ q[h] * d ** -0.5 - (keys @ q[h] * d ** -0.5).max())
        want[h] = w @ vals / w.sum()
    if pos <= rows:
        np.testing.assert_allclose(attn.unpartition().numpy().reshape(nh, d), want, rtol=1e-4,
                                   atol=1e-4)
    want_k, want_v = kc0.copy(), vc0.copy()
    if pos < rows:
        want_k[:, pos] = k_new
        want_v[:, pos] = heads[nh + nkv:]
    np.testing.assert_allclose(kc.unpartition().numpy().reshape(kc0.shape), want_k, rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_array_equal(vc.unpartition().numpy().reshape(vc0.shape), want_v)


def _reference_pick(x: np.ndarray, seed: int, pos: int, temp: float, top_k: int,
                    top_p: float) -> tuple[int, set[int]]:
    """The token sample_next must draw, and the kept set: softmax(x / temp) over the top_k
    logits, then the largest of those whose mass reaches top_p; u from Philox at offset pos
    walks the kept probabilities in vocabulary order."""
    order = np.argsort(-x, kind="stable")
    kept = np.zeros(x.size, bool)
    kept[x >= x[order[top_k - 1]]] = True
    p = np.where(kept, np.exp((x.astype(np.float64) - x.max()) / temp), 0.0)
    mass = np.cumsum(p[order])
    n = int(np.searchsorted(mass, top_p * mass[-1] * (1 - 1e-6))) + 1
    kept[:] = False
    kept[order[:n]] = True
    q = np.where(kept, p, 0.0)
    word = philox4x32([np.array([pos]), *(np.zeros(1, np.int64),) * 3], (seed, 0))[0]
    u = float(uniform(word)[0])
    return int(np.searchsorted(np.cumsum(q), u * q.sum(), side="right")), set(np.flatnonzero(kept))


@pytest.mark.parametrize("top_k, top_p", [(5, 1.0), (50, 0.6), (1, 1.0), (60, 0.95)])
def test_sampled_tokens_follow_the_numpy_reference(top_k: int, top_p: float) -> None:
    """On a vocabulary of 60 (not a tile multiple: BV 16): the kernel's pick for each position
    is exactly the reference's, so it always lies in the top-k/top-p set."""
    v, temp, seed = 60, 0.7, 11
    x = (np.random.default_rng(top_k).standard_normal(v) * 2).astype(np.float32)
    for pos in range(12):
        hist, pos_t, *_ = sample_next(
            ct.zeros((20,), ct.i32).partition((20,)),
            ct.from_numpy(np.array([pos], np.int32)).partition((1,)),
            ct.from_numpy(np.array([0], np.int32)), ct.from_numpy(x[None]), seed, 1 / temp,
            top_k, top_p, V=v, BV=16).sync()
        want, kept = _reference_pick(x, seed, pos, temp, top_k, top_p)
        got = int(hist.unpartition().numpy()[pos + 1])
        assert got == want and got in kept and len(kept) <= top_k
        assert int(pos_t.unpartition().numpy()[0]) == pos + 1


@pytest.mark.parametrize("top_k, top_p", [(5, 1.0), (50, 0.6), (1, 1.0), (60, 0.95), (3, 0.9)])
@pytest.mark.parametrize("blocks", [2, 4, 8])
@pytest.mark.parametrize("ties", [False, True])
def test_sampling_over_the_top_blocks_is_the_reference(top_k: int, top_p: float, blocks: int,
                                                       ties: bool) -> None:
    """sample_next_blocks: the draw over the gathered blocks whose maximum is at least the k-th
    largest block maximum (at most `blocks` of them; more, as with a large top_k, walk the row)
    picks sample_next's token, which is the reference's (with tied logits the two kernels keep
    all of a tie where the reference cuts it in index order). V = 60 in blocks of 8."""
    import decode_kernels as dk

    v, bn, temp, seed = 60, 8, 0.7, 11
    x = (np.random.default_rng(top_k).standard_normal(v) * 2).astype(np.float32)
    if ties:  # three blocks share the largest logit
        x[[3, 20, 41]] = x.max() + 1
    nb = -(-v // bn)
    top = np.full((1, nb), -1.0e30, np.float32)
    for b in range(nb):
        top[0, b] = x[b * bn:(b + 1) * bn].max()
    for pos in range(12):
        state = (np.array([pos], np.int32), np.array([0], np.int32))
        picks = []
        for kern, extra, consts in ((dk.sample_next_blocks, (ct.from_numpy(top),),
                                     {"NB": nb, "NBP": 8, "BN": bn, "C": blocks}),
                                    (sample_next, (), {})):
            hist, pos_t, *_ = kern(
                ct.zeros((20,), ct.i32).partition((20,)), ct.from_numpy(state[0]).partition((1,)),
                ct.from_numpy(state[1]), ct.from_numpy(x[None]), *extra, seed, 1 / temp, top_k,
                top_p, V=v, BV=16, **consts).sync()
            picks.append(int(hist.unpartition().numpy()[pos + 1]))
            assert int(pos_t.unpartition().numpy()[0]) == pos + 1
        assert picks[0] == picks[1]
        if not ties:
            assert picks[0] == _reference_pick(x, seed, pos, temp, top_k, top_p)[0]


@pytest.mark.parametrize("vocab, hot", [(997, 996), (997, 500), (2048, 1025), (5, 4)])
def test_greedy_argmax_kernel(vocab: int, hot: int) -> None:
    """All logits negative (the zeros loaded past the vocabulary must not win), two equal
    maxima (the first wins, as np.argmax), and a vocabulary that is not a tile multiple."""
    x = -1.0 - np.random.default_rng(vocab).random((1, vocab), dtype=np.float32)
    x[0, hot] = x[0, vocab - 1] = -0.5
    bv = 4 if vocab == 5 else 256
    out, _ = argmax_row(ct.zeros((1,), ct.i32).partition((1,)), ct.from_numpy(x), V=vocab,
                        BV=bv).sync()
    assert int(out.unpartition().numpy()[0]) == hot == int(np.argmax(x))


@pytest.mark.parametrize("lat", [0, 6])
def test_split_gemv_partial_sums_add_up_in_the_norm(lat: int) -> None:
    """o/down projections split over K: S rows of partial sums (K tiles s, s + S, ...; 1000 is
    not a tile multiple) that add_rms_norm adds to the residual before normalizing; with or
    without the loads' latency hint."""
    rng = np.random.default_rng(7)
    w, x, res = (rng.standard_normal(sh, dtype=np.float32) for sh in ((40, 1000), (1, 1000),
                                                                        (1, 40)))
    parts, *_ = gemv_f32(ct.zeros((4, 40), ct.f32).partition((1, 16)), ct.from_numpy(x),
                         ct.from_numpy(w), S=4, BK=64, LAT=lat).sync()
    p = parts.unpartition()
    np.testing.assert_allclose(p.numpy().sum(0), (x @ w.T)[0], rtol=1e-4, atol=1e-3)
    h, out, *_ = add_rms_norm(ct.zeros((1, 40), ct.f32).partition((1, 64)),
                              ct.zeros((1, 40), ct.f32).partition((1, 64)), ct.from_numpy(res),
                              p, ct.from_numpy(np.full(64, 2.0, np.float32)), 1e-6, H=40,
                              S=4).sync()
    want = res + x @ w.T
    np.testing.assert_allclose(h.unpartition().numpy(), want, rtol=1e-4, atol=1e-3)
    norm = want / np.sqrt((want * want).mean() + 1e-6) * 2.0
    np.testing.assert_allclose(out.unpartition().numpy(), norm, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("splits", [1, 4, 16, 20])
def test_prefetching_gemv_and_gate_up_equal_the_plain_ones(splits: int) -> None:
    """The pdl=True forms (first weight tile before the wait) give the plain kernels' sums:
    K = 1000 is 16 tiles of 64 (the last ragged); 20 splits leave some with no tile at all."""
    import decode_kernels as dk

    rng = np.random.default_rng(splits)
    w, u, x = (rng.standard_normal(sh, dtype=np.float32) for sh in ((40, 1000), (40, 1000),
                                                                     (1, 1000)))
    out = [kern(ct.zeros((splits, 40), ct.f32).partition((1, 16)), ct.from_numpy(x),
                ct.from_numpy(w), S=splits, BK=64, LAT=0).sync()[0].unpartition().numpy()
           for kern in (dk.gemv_f32, dk.gemv_f32_pdl)]
    np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[1].sum(0), (x @ w.T)[0], rtol=1e-4, atol=1e-3)
    act = [kern(ct.zeros((1, 40), ct.f32).partition((1, 16)), ct.from_numpy(x), ct.from_numpy(w),
                ct.from_numpy(u), BK=64, LAT=0).sync()[0].unpartition().numpy()
           for kern in (dk.gate_up_f32, dk.gate_up_f32_pdl)]
    np.testing.assert_allclose(act[1], act[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("hot", [996, 500, 31, 32])
def test_lm_head_block_maxima_give_the_first_argmax(hot: int) -> None:
    """The head's per-block (max, index) pairs and the pick over them: all logits negative
    (lanes past the vocabulary must not win), two equal maxima in different blocks or at a
    block's edge (the first wins, as np.argmax)."""
    v, bn = 997, 32
    nb = -(-v // bn)
    w = -1.0 - np.random.default_rng(hot).random((v, 8), dtype=np.float32)
    w[hot] = w[v - 1] = -0.25
    x = np.ones((1, 8), np.float32)
    logits, top, top_at, *_ = lm_head_f32(
        ct.zeros((1, v), ct.f32).partition((1, bn)), ct.zeros((1, nb), ct.f32).partition((1, 1)),
        ct.zeros((1, nb), ct.i32).partition((1, 1)), ct.from_numpy(x), ct.from_numpy(w), V=v,
        BK=8, LAT=0).sync()
    np.testing.assert_allclose(logits.unpartition().numpy(), x @ w.T, rtol=1e-6)
    hist, _ = greedy_next(ct.zeros((4,), ct.i32).partition((4,)),
                          ct.zeros((1,), ct.i32).partition((1,)),
                          ct.from_numpy(np.array([0], np.int32)), top.unpartition(),
                          top_at.unpartition(), NB=nb, V=v, BV=16).sync()[:2]
    assert int(hist.unpartition().numpy()[1]) == hot == int(np.argmax(x @ w.T))


def test_config_reads_hf_keys_and_defaults() -> None:
    c = parse_config({**checkpoint.TINY, "head_dim": None, "num_key_value_heads": None})
    assert (c.head_dim, c.num_key_value_heads, c.group) == (128, 4, 1)  # HF's defaults
    v5 = {k: v for k, v in checkpoint.TINY.items() if k not in ("rope_theta", "torch_dtype")}
    c = parse_config({**v5, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6},
                      "dtype": "bfloat16"})
    assert (c.rope_theta, c.torch_dtype, c.tie_word_embeddings) == (1e6, "bfloat16", False)


@pytest.mark.parametrize("change, words", [
    ({"hidden_size": None}, "'hidden_size' is missing"),
    ({"num_attention_heads": 0}, "'num_attention_heads' must be a positive integer, not 0"),
    ({"num_key_value_heads": 3}, "= 3 does not divide num_attention_heads = 4"),
    ({"head_dim": 48}, "'head_dim' = 48: this engine needs a power of two"),
    ({"rms_norm_eps": "x"}, "'rms_norm_eps' must be a positive number, not 'x'"),
    ({"tie_word_embeddings": 1}, "'tie_word_embeddings' must be true or false, not 1"),
    ({"torch_dtype": "int8"}, "'torch_dtype' is 'int8'; expected one of"),
    ({"rope_scaling": {"rope_type": "yarn"}}, "rope_type 'yarn' is not supported"),
    ({"attention_bias": True}, "'attention_bias' is true"),
])
def test_config_errors_say_what_is_wrong(change: dict[str, Any], words: str) -> None:
    raw = {k: v for k, v in {**checkpoint.TINY, **change}.items() if v is not None}
    with pytest.raises(ConfigError, match=r"cfg\.json: ") as e:
        parse_config(raw, "cfg.json")
    assert words in str(e.value)


def test_weights_errors_name_the_tensor(tmp_path: Path) -> None:
    cfg, _ = _make(tmp_path, False, 1, "F32", {})
    with pytest.raises(WeightsError, match=r"'model.embed_tokens.weight' has shape \(1000, 64\); "
                       r"config.json asks for \(1001, 64\)"):
        load_weights(tmp_path, parse_config({**cfg, "vocab_size": 1001}))
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(WeightsError, match=r"neither model\.safetensors nor"):
        load_weights(tmp_path, parse_config(cfg))


def test_tuning_file_gives_the_h200_sweeps_tilings() -> None:
    """tuning.json's entries: the H200's by its device name, the same as the default (the
    interpreter's, an unnamed GPU's); the GEMV tilings it gives at the 0.6B and 4B shapes are
    the sweeps' (README: BK 256 for QKV and the head, 128 otherwise; o split in 8 at 0.6B and 4
    at 4B, down in 4; QKV occupancy 2 and latency 4 from K = 2048)."""
    h200, default = tuning.load("NVIDIA H200"), tuning.load(None)
    assert (h200.gpu, tuning.load("NVIDIA RTX 9999").gpu) == ("H200", default.gpu)
    assert h200 == default and (h200.sms, h200.cache_tile) == (132, 128)
    want = {  # (n, k, role) -> (bn, bk, splits, hints, latency)
        (4096, 1024, "qkv"): (32, 256, 1, {}, 6), (6144, 2560, "qkv"): (32, 256, 1,
                                                                        {"occupancy": 2}, 4),
        (1024, 2048, "o"): (32, 128, 8, {"occupancy": 3}, 6),
        (2560, 4096, "o"): (32, 128, 4, {"occupancy": 3}, 6),
        (1024, 3072, "down"): (32, 128, 4, {"occupancy": 3}, 6),
        (9728, 2560, "gate_up"): (32, 128, 1, {"occupancy": 3}, 2),
        (3072, 1024, "norm_gate_up"): (32, 128, 1, {}, 2),
        (9728, 2560, "norm_gate_up"): (8, 256, 1, {}, 2),
        (151936, 1024, "head"): (32, 256, 1, {"occupancy": 3}, 6),
        (40, 1000, "down"): (32, 128, 4, {"occupancy": 3}, 6),
    }
    for (n, k, role), tiling in want.items():
        g = h200.gemv(n, k, role)
        assert (g.bn, g.bk, g.splits, g.hints, g.latency) == tiling, (n, k, role)
    assert (h200.attention_splits(32, 8), h200.attention_splits(16, 1),
            h200.attention_splits(8, 64)) == (4, 1, 16)
    assert (h200.gemm_rows(5), h200.gemm_rows(37), h200.gemm_rows(1000)) == (16, 64, 64)


def test_engine_checks_clean() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        assert check_source(path.read_text(), str(path)) == [], path.name


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_kernel_of_a_step_compiles_to_a_cubin(tmp_path: Path, toolchain: object,
                                                    dtype: str) -> None:
    """Every launch of a step (both picks), compiled with `kernel.compile(arch="sm_90")` on
    metadata-only stand-ins with the engine's own shapes and Consts. The KV append's one-row
    stores (in the attention merge) take the caches' own partition views (aligned tiles: no
    pointer tiles, no view made per block)."""
    _make(tmp_path, True, 1, "F32", {"hidden_size": 96, "vocab_size": 997})
    c = load_config(tmp_path)
    names: set[str] = set()
    engine = Qwen3(c, load_weights(tmp_path, c), dtype)
    for sampling in (Sampling(), Sampling(0.7, 40, 0.9), Sampling(0.7, 0, 0.9)):
        engine.reset([1, 2], 6, sampling)
        for ln, compiled in checkpoint.compiled_links(engine.buf, engine.links):
            names.add(ln.kernel.__name__)
            if ln.kernel.__name__ == "attention_merge_append":
                assert "offset" not in compiled.tileir
                assert compiled.tileir.count("make_tensor_view") == 10  # one per tensor
    suffix = "bf16" if dtype == "bfloat16" else "f32"
    assert names == {"rms_norm", "add_rms_norm", "decode_attention_new",
                     "attention_merge_append", "greedy_next", "sample_next", "sample_next_blocks",
                     *(f"{n}_{suffix}" for n in ("embed", "gemv", "lm_head", "gate_up"))}


# -- on the GPU machine: the same weights in transformers --------------------------------------
def _hf_model(cfg: dict[str, Any], seed: int) -> Any:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    keys = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "head_dim", "vocab_size", "rms_norm_eps", "rope_theta",
            "tie_word_embeddings", "max_position_embeddings")
    hf = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(
        **{k: cfg[k] for k in keys})).float().eval()
    tensors = checkpoint.random_tensors(cfg, seed)
    if cfg["tie_word_embeddings"]:
        tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"]
    hf.load_state_dict({n: torch.from_numpy(a.astype(np.float32)) for n, a in tensors.items()})
    return hf


def _shape(name: str) -> dict[str, Any]:
    cfg = {**checkpoint.TINY, "tie_word_embeddings": name == "tiny-tied"}
    if name == "0.6B":  # Qwen3-0.6B's config.json, with seeded random weights
        cfg |= {"hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                "vocab_size": 151936, "rope_theta": 1e6, "tie_word_embeddings": True,
                "max_position_embeddings": 40960}
    return cfg


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "tiny-tied", "0.6B"])
def test_greedy_tokens_match_transformers(tmp_path: Path, shape: str) -> None:
    torch = pytest.importorskip("torch")
    hf = _hf_model(_shape(shape), seed=7)
    hf.save_pretrained(tmp_path)
    hf.generation_config.eos_token_id = None  # exactly NEW tokens, none suppressed or cut
    with torch.no_grad():
        out = hf.generate(torch.tensor([PROMPT]), attention_mask=torch.ones(1, len(PROMPT)),
                          max_new_tokens=NEW, do_sample=False)
    want = out[0, len(PROMPT):].tolist()
    c = load_config(tmp_path)
    assert generate(Qwen3(c, load_weights(tmp_path, c)), PROMPT, NEW).tokens == want


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "0.6B"])
def test_bf16_logits_near_transformers(tmp_path: Path, shape: str) -> None:
    """A BF16 checkpoint: transformers computes in bf16, the engine reads the same bf16
    weights and computes in float32, so the prompt's last logits agree to bf16 accuracy."""
    torch = pytest.importorskip("torch")
    hf = _hf_model(_shape(shape), seed=7).to(torch.bfloat16)
    hf.save_pretrained(tmp_path)
    with torch.no_grad():
        want = hf(torch.tensor([PROMPT])).logits[0, -1].float().numpy()
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), "bfloat16")
    engine.reset(PROMPT, 1)
    engine.run_eager(len(PROMPT))
    got = engine.logits()
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 0.05, f"max logit error {err:.4f} of the largest logit"


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "0.6B"])
def test_graph_eager_and_sampling_agree_on_the_gpu(tmp_path: Path, shape: str) -> None:
    """CUDA graphs for real: the replayed step gives the eager path's tokens, greedy and
    sampled, and top-k = 1 is greedy, at the 0.6B shapes (vocabulary 151936)."""
    cfg = _shape(shape)
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 7), "BF16", 1)
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), "bfloat16")
    greedy = generate(engine, PROMPT, 16).tokens
    assert generate(engine, PROMPT, 16, eager=True).tokens == greedy
    assert generate(engine, PROMPT, 16, Sampling(0.9, 1, 1.0, seed=2)).tokens == greedy
    hot = Sampling(1.0, 50, 0.9, seed=2)
    sampled = generate(engine, PROMPT, 16, hot).tokens
    assert generate(engine, PROMPT, 16, hot, eager=True).tokens == sampled


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "0.6B"])
def test_dependent_launches_on_the_gpu(tmp_path: Path, shape: str) -> None:
    """Programmatic dependent launches for real (sm_90): the graph of `.dependent()` kernels
    overlaps the kernel boundaries and gives the plain graph's tokens, greedy and sampled."""
    cfg = _shape(shape)
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 7), "BF16", 1)
    c = load_config(tmp_path)
    plain = Qwen3(c, load_weights(tmp_path, c), "bfloat16")
    for mode in ("entry", "prefetch"):
        dependent = Qwen3(c, load_weights(tmp_path, c), "bfloat16", pdl=mode)
        for sampling in (GREEDY, Sampling(1.0, 50, 0.9, seed=2)):
            want = generate(plain, PROMPT, 16, sampling).tokens
            assert generate(dependent, PROMPT, 16, sampling).tokens == want, mode


def test_every_dependent_kernel_compiles_with_its_wait_placed(tmp_path: Path,
                                                              toolchain: object) -> None:
    _make(tmp_path, True, 1, "F32", {"hidden_size": 96, "vocab_size": 997})
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), "bfloat16", pdl="prefetch")
    engine.reset([1, 2], 6)
    for ln, compiled in checkpoint.compiled_links(engine.buf, engine.links):
        text, name = compiled.tileir, ln.kernel.__name__
        assert text.index("gdc_wait") < text.index("gdc_launch_dependents"), name
        accesses = [text.index(op) for op in ("load_view_tko", "store_view_tko", "load_ptr_tko",
                                              "store_ptr_tko") if op in text]
        if name.endswith("_pdl"):  # its first weight tiles, then the wait
            assert min(accesses) < text.index("gdc_wait"), name
        else:
            assert text.index("gdc_launch_dependents") < min(accesses), name


def test_benchmark_times_both_paths_from_a_skipped_prefix(tmp_path: Path) -> None:
    """benchmarks/qwen3_decode.py's engine timing on a tiny checkpoint: decoding from position
    20 with the prefix skipped, the graph and eager paths pick the same tokens."""
    from benchmarks import qwen3_decode  # (its folder on sys.path would shadow HF's `kernels`)

    engine = _engine(tmp_path)
    graph_rate, graph = qwen3_decode.engine_rate(engine, 20, 4, eager=False)
    eager_rate, eager = qwen3_decode.engine_rate(engine, 20, 4, eager=True)
    assert graph == eager and len(graph) == 5 and graph_rate > 0 and eager_rate > 0
    chat = Sampling(*qwen3_decode.CHAT_SAMPLING_ARGS)
    rate, sampled = qwen3_decode.engine_rate(engine, 20, 4, eager=False, sampling=chat)
    assert rate > 0 and sampled == qwen3_decode.engine_rate(engine, 20, 4, True, chat)[1]
    c = engine.cfg
    kv = c.num_hidden_layers * 2 * c.num_key_value_heads * 20 * c.head_dim * 4
    assert qwen3_decode.bytes_per_token(c, 20, 4) - qwen3_decode.bytes_per_token(c, 0, 4) == kv
    assert qwen3_decode.bytes_per_token(c, 20) - qwen3_decode.bytes_per_token(c, 0) == kv // 2
