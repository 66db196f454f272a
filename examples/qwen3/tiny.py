"""Tiny Qwen3 and Llama 3 checkpoints, written as Hugging Face writes them: for the tests and
for demos.

    python examples/qwen3/tiny.py OUTDIR [--family qwen3|llama] [--dtype F32|BF16] [--shards N]
        [--seed S] [--shapes CONFIG_JSON] [--hf-init]

writes a complete tiny checkpoint to OUTDIR: config.json, the weights (model.safetensors, or
shards and model.safetensors.index.json), generation_config.json, and a real-format tokenizer
(a byte-level BPE in tokenizer.json, built here from a short text) with tokenizer_config.json
holding a Qwen3-format chat template. Its weights are random except for a thread through them:
whatever the prompt, greedy decoding answers `REPLY` and then `<|im_end|>`, so a demo or a test
sees text stream and stop at the end-of-sequence token. Writing into a directory that holds a
checkpoint replaces its weight files (an older index or shards are removed; other files are
left alone). A config the engine would refuse (4 heads over 3 kv heads, say) is an error before
anything is written. Then:

    python examples/qwen3/generate.py --model OUTDIR --chat --prompt "Hi"

`--shapes CONFIG_JSON` draws the same thread at a real model's sizes (a published config.json:
Qwen3-0.6B's 28 layers, hidden 1024 and 151,936-token vocabulary, say), the family from its
model_type: a full-size demo of streaming and stopping with the tiny tokenizer (the head is
untied, which the thread needs; the vocabulary past the tokenizer's is never picked).
`--family llama` writes a Llama 3 checkpoint instead (TINY_LLAMA: no q/k norm, Llama 3's
scaled RoPE with an original context short enough that the scaling changes the tiny model's
frequencies, the same tokenizer and thread). `--hf-init` writes no thread and no tokenizer:
the family's transformers model with transformers' own random initialization, saved by
`save_pretrained` (needs torch and transformers); `--dtype BF16` and `--shards N` apply to it
too, and so does `--shapes`' tie_word_embeddings.

`write` and `random_tensors` are the plain writers: seeded random weights whose logits are well
separated (greedy choices are not near-ties), F32 or BF16 (written in the safetensors format
directly: NumPy has no bfloat16); `random_tensors` gives a Llama config no q/k norms. The
writers take a str or a Path, and the dtype as F32 or BF16 (or f32, float32, bf16, bfloat16,
in any case; another name is a ValueError).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

A = NDArray[np.float64]
HERE = Path(__file__).resolve().parent
TINY: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 1000, "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "float32",
    "hidden_act": "silu", "attention_bias": False, "max_position_embeddings": 512,
}
# A Llama 3.x config.json at the same tiny size: head_dim is left to hidden_size / heads (16),
# and the llama3 RoPE scaling's original context (64) puts the 8 frequencies in all three of
# its bands (kept, blended, divided by `factor`).
TINY_LLAMA: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 1000, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
    "tie_word_embeddings": False, "torch_dtype": "float32", "hidden_act": "silu",
    "attention_bias": False, "mlp_bias": False, "max_position_embeddings": 512,
}
CONFIGS = {"qwen3": TINY, "llama": TINY_LLAMA}
# the stored weights' dtype: its safetensors name, by the names a caller may use for it
STORAGE = {"f32": "F32", "float32": "F32", "bf16": "BF16", "bfloat16": "BF16"}
# the weight files `write` (and save_pretrained) writes: a rewrite removes the old ones first
WEIGHT_FILE = re.compile(r"model\.safetensors(\.index\.json)?|model-\d{5}-of-\d{5}\.safetensors")
# what `--shapes` takes from a config.json: the sizes (required) and the rest of the arithmetic
SIZE_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "vocab_size")
ARITHMETIC_KEYS = ("head_dim", "rms_norm_eps", "rope_theta", "rope_scaling",
                   "max_position_embeddings")
# The tiny model's answer: multi-byte characters (an em dash, an emoji) that the byte-level BPE
# keeps as one token per byte, so streaming must hold partial characters back.
REPLY = "Hello from a tiny Qwen3 on cutile—🙂"
SPECIAL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")  # Qwen's control tokens
THINK = ("<think>", "</think>")  # added, not special: they are printed
# The BPE's training text (its merges make whole words of these).
CORPUS = (
    "Hello from a tiny Qwen3 on cutile. You are a helpful assistant.",
    "What is a tile? A tile is a small block of a tensor that one kernel block loads.",
    "Tiles and kernels run on the GPU; the interpreter runs them with NumPy on the host.",
    "Tell me about the weather today, and write a short poem about the sea.",
    "The quick brown fox jumps over the lazy dog. 0123456789",
)
# Qwen2/Qwen3's pre-tokenizer pattern (contractions, letters, single digits, punctuation runs,
# newlines, spaces).
SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
         r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def random_tensors(cfg: dict[str, Any], seed: int) -> dict[str, A]:
    """Weights whose logits are well separated, so greedy choices are not near-ties."""
    rng = np.random.default_rng(seed)
    h, inter = cfg["hidden_size"], cfg["intermediate_size"]
    nh, nkv, v = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]
    d = cfg.get("head_dim") or h // nh
    qk_norm = cfg.get("model_type", "qwen3") == "qwen3"

    def mat(n: int, k: int) -> A:
        out: A = rng.standard_normal((n, k)) / np.sqrt(k)
        return out

    def norm(n: int) -> A:
        return 1.0 + 0.1 * rng.standard_normal(n)

    t = {"model.embed_tokens.weight": rng.standard_normal((v, h)), "model.norm.weight": norm(h)}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t |= {p + "input_layernorm.weight": norm(h), p + "post_attention_layernorm.weight": norm(h),
              p + "self_attn.q_proj.weight": mat(nh * d, h),
              p + "self_attn.k_proj.weight": mat(nkv * d, h),
              p + "self_attn.v_proj.weight": mat(nkv * d, h),
              p + "self_attn.o_proj.weight": mat(h, nh * d) * 4.0}
        if qk_norm:  # drawn here, between o and the MLP: the seeds' walks stay what they were
            t |= {p + "self_attn.q_norm.weight": norm(d), p + "self_attn.k_norm.weight": norm(d)}
        t |= {p + "mlp.gate_proj.weight": mat(inter, h), p + "mlp.up_proj.weight": mat(inter, h),
              p + "mlp.down_proj.weight": mat(h, inter) * 4.0}
    if not cfg["tie_word_embeddings"]:
        t["lm_head.weight"] = mat(v, h) * 4.0
    return t


def bf16_round(a: A) -> A:
    """The bf16 value nearest to each float32 (ties to even), back in float64."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def storage_dtype(name: str) -> str:
    """"F32" or "BF16" for `name` (those, or f32, float32, bf16, bfloat16, in any case)."""
    got = STORAGE.get(name.lower()) if isinstance(name, str) else None
    if got is None:
        raise ValueError(f"dtype {name!r}: expected F32 or BF16 (or float32, bfloat16)")
    return got


def write(model_dir: str | Path, cfg: dict[str, Any], tensors: dict[str, A],
          dtype: str = "F32", shards: int = 1) -> dict[str, A]:
    """Writes config.json and the weights (replacing the weight files of an earlier write:
    WEIGHT_FILE's names, nothing else); returns the tensors as stored (bf16-rounded for
    BF16)."""
    model_dir, dtype = Path(model_dir), storage_dtype(dtype)
    if isinstance(shards, bool) or not isinstance(shards, int) or shards < 1:
        raise ValueError(f"shards {shards!r}: expected an integer >= 1")
    model_dir.mkdir(parents=True, exist_ok=True)
    remove_weights(model_dir)
    (model_dir / "config.json").write_text(json.dumps(cfg, indent=2))
    names = sorted(tensors)
    stored = {n: bf16_round(tensors[n]) if dtype == "BF16" else
              tensors[n].astype(np.float32).astype(np.float64) for n in names}
    files = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)] \
        if shards > 1 else ["model.safetensors"]
    weight_map: dict[str, str] = {}
    for i, fname in enumerate(files):
        part = {n: stored[n] for n in names[i::shards]}
        weight_map |= {n: fname for n in part}
        (_write_bf16 if dtype == "BF16" else _write_f32)(model_dir / fname, part)
    if shards > 1:
        index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
        (model_dir / "model.safetensors.index.json").write_text(json.dumps(index))
    return stored


def remove_weights(model_dir: Path) -> None:
    """The weight files a checkpoint of this module or of save_pretrained has (one file or
    shards and their index): a new write with other shards would leave them beside it, and
    the engine reads an index before the files."""
    for path in model_dir.iterdir():
        if WEIGHT_FILE.fullmatch(path.name) and path.is_file():
            path.unlink()


def _write_f32(path: Path, part: dict[str, A]) -> None:
    from safetensors.numpy import save_file

    save_file({n: a.astype(np.float32) for n, a in part.items()}, str(path))


def _write_bf16(path: Path, part: dict[str, A]) -> None:
    header: dict[str, Any] = {}
    blobs, offset = [], 0
    for n, a in part.items():
        raw = (a.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[n] = {"dtype": "BF16", "shape": list(a.shape),
                     "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


# -- the tokenizer and the chat template ------------------------------------------------------
@dataclass(frozen=True)
class Tiny:
    """What `write_tiny` wrote: the config, the stored tensors, the ids of REPLY (the greedy
    answer) and of the control tokens."""
    cfg: dict[str, Any]
    tensors: dict[str, A]
    reply: list[int]
    ids: dict[str, int]


def chat_template() -> str:
    """A Qwen3-format chat template (ChatML turns, thinking blocks, tool calls)."""
    return (HERE / "qwen3_chat_template.jinja").read_text(encoding="utf-8").rstrip("\n")


def build_tokenizer(vocab_size: int = 400) -> Any:
    """A byte-level BPE as Qwen's (NFC, Qwen's split pattern, byte-level pieces) trained on
    CORPUS, with Qwen's control tokens and thinking tags added: a `tokenizers.Tokenizer`."""
    try:
        from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, trainers
        from tokenizers import pre_tokenizers as pre
    except ImportError:
        raise SystemExit("tiny.py: the tokenizer needs the 'tokenizers' package (cutile's "
                         "[models] extra: pip install 'cutile[models]')") from None
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre.Sequence([pre.Split(Regex(SPLIT), behavior="isolated"),
                                      pre.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  initial_alphabet=pre.ByteLevel.alphabet())
    tok.train_from_iterator(list(CORPUS), trainer)
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIAL])
    tok.add_tokens([AddedToken(s, special=False, normalized=False) for s in THINK])
    return tok


def tokenizer_config(tok: Any, template: str) -> dict[str, Any]:
    """tokenizer_config.json as Qwen3 ships it (its special tokens and its chat template)."""
    def entry(text: str, special: bool) -> dict[str, Any]:
        return {"content": text, "lstrip": False, "normalized": False, "rstrip": False,
                "single_word": False, "special": special}

    added = {str(tok.token_to_id(s)): entry(s, s in SPECIAL) for s in (*SPECIAL, *THINK)}
    return {"add_bos_token": False, "add_prefix_space": False, "added_tokens_decoder": added,
            "additional_special_tokens": list(SPECIAL[1:]), "bos_token": None,
            "chat_template": template, "clean_up_tokenization_spaces": False,
            "eos_token": "<|im_end|>", "errors": "replace", "model_max_length": 32768,
            "pad_token": "<|endoftext|>", "split_special_tokens": False,
            "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}


def replying_tensors(cfg: dict[str, Any], reply: list[int], eos: int, seed: int) -> dict[str, A]:
    """Random weights with a thread through them: greedy decoding emits `reply`, then `eos`.

    Token reply[k] is state k + 1, every other token state 0; the embedding puts a large
    component on basis direction `state` (plus noise), attention and MLP add only small terms,
    so the last hidden state points along the current token's state, and the LM head's row of
    reply[k] (of `eos` after the last) reads direction k: from any prompt the walk goes
    reply[0], reply[1], ... and ends at `eos`."""
    h, v = cfg["hidden_size"], cfg["vocab_size"]
    if len(reply) + 1 > h:
        raise ValueError(f"hidden_size {h} is too small for the reply thread: it needs at least "
                         f"{len(reply) + 1} (a direction per token of the reply, one for the "
                         "end)")
    if len(set(reply)) != len(reply) or eos in reply:
        raise ValueError("the reply needs distinct tokens and no eos")
    t = random_tensors({**cfg, "tie_word_embeddings": False}, seed)  # the thread needs a head
    rng = np.random.default_rng(seed + 1)
    state = np.zeros(v, dtype=np.int64)
    state[reply] = np.arange(1, len(reply) + 1)
    t["model.embed_tokens.weight"] = 8.0 * np.eye(h)[state] + 0.1 * rng.standard_normal((v, h))
    for name in t:
        if name.endswith(("o_proj.weight", "down_proj.weight")):
            t[name] = t[name] * 0.02
    head = 0.05 * rng.standard_normal((v, h))
    head[reply, np.arange(len(reply))] += 4.0
    head[eos, len(reply)] += 4.0
    t["lm_head.weight"] = head
    return t


def write_tiny(model_dir: str | Path, dtype: str = "F32", shards: int = 1, seed: int = 0,
               family: str = "qwen3", shapes: dict[str, Any] | None = None) -> Tiny:
    """The complete demo checkpoint (see the module's docstring). `shapes`: a config.json
    whose sizes (SIZE_KEYS, and ARITHMETIC_KEYS where it has them) replace the family's tiny
    ones; its `model_type`, when given, picks the family. The head is untied either way: the
    thread needs one. ValueError, before anything is written, for a config the engine would
    refuse (config.py) or one too small for the thread."""
    model_dir, dtype = Path(model_dir), storage_dtype(dtype)
    tok = build_tokenizer()
    ids = {s: int(tok.token_to_id(s)) for s in (*SPECIAL, *THINK)}
    reply = list(tok.encode(REPLY, add_special_tokens=False).ids)
    base = family_config(family) if shapes is None else _with_shapes(family, shapes)
    if base["vocab_size"] < tok.get_vocab_size():
        raise ValueError(f"a vocabulary of {base['vocab_size']} is smaller than the tiny "
                         f"tokenizer's {tok.get_vocab_size()} tokens")
    cfg = {**base, "torch_dtype": "bfloat16" if dtype == "BF16" else "float32",
           "tie_word_embeddings": False, "bos_token_id": ids["<|endoftext|>"],
           "eos_token_id": ids["<|im_end|>"]}
    check_config(cfg)
    tensors = replying_tensors(cfg, reply, ids["<|im_end|>"], seed)
    stored = write(model_dir, cfg, tensors, dtype, shards)
    tok.save(str(model_dir / "tokenizer.json"))
    (model_dir / "tokenizer_config.json").write_text(
        json.dumps(tokenizer_config(tok, chat_template()), indent=2, ensure_ascii=False),
        encoding="utf-8")
    generation = {"bos_token_id": ids["<|endoftext|>"], "do_sample": True,
                  "eos_token_id": [ids["<|im_end|>"], ids["<|endoftext|>"]],
                  "pad_token_id": ids["<|endoftext|>"], "temperature": 0.6, "top_k": 20,
                  "top_p": 0.95}
    (model_dir / "generation_config.json").write_text(json.dumps(generation, indent=2))
    return Tiny(cfg, stored, reply, ids)


def family_config(family: str) -> dict[str, Any]:
    """The family's tiny config (CONFIGS), or ValueError naming the families."""
    if family not in CONFIGS:
        raise ValueError(f"family {family!r}: expected one of {', '.join(CONFIGS)}")
    return CONFIGS[family]


def check_config(cfg: dict[str, Any]) -> None:
    """ValueError when the engine would refuse `cfg` (config.py's reading, the message naming
    the key): found before a checkpoint is written."""
    config = _engine("config")
    try:
        config.parse_config(cfg, "config.json")
    except config.ConfigError as e:
        raise ValueError(f"{e} (generate.py would refuse this checkpoint)") from None


def _engine(name: str) -> Any:
    """A module of the engine's folder (this file may be loaded by path, without that folder
    on sys.path)."""
    if str(HERE) not in sys.path:
        sys.path.append(str(HERE))
    return importlib.import_module(name)


def write_hf(model_dir: str | Path, cfg: dict[str, Any], seed: int = 0, dtype: str = "F32",
             shards: int = 1) -> Any:
    """The model of `cfg` (a Qwen3 or Llama config.json, `tie_word_embeddings` honoured) with
    transformers' own random initialization, saved by `save_pretrained` (config.json,
    generation_config.json, safetensors); returns the transformers model, in float32. BF16 or
    more than one shard: the weights rewritten by `write` in that form (the model returned
    holds the bf16-rounded weights, as stored). Needs torch and transformers."""
    model_dir, dtype = Path(model_dir), storage_dtype(dtype)
    try:  # by name: torch is no dependency of cutile (nor of its type check)
        torch = importlib.import_module("torch")
        transformers = importlib.import_module("transformers")
    except ImportError:
        raise SystemExit("tiny.py: --hf-init needs torch and transformers") from None
    prefix = {"qwen3": "Qwen3", "llama": "Llama"}[cfg.get("model_type", "qwen3")]
    keys = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type",
                                                       "torch_dtype")}
    torch.manual_seed(seed)
    config = getattr(transformers, prefix + "Config")(**keys)
    hf = getattr(transformers, prefix + "ForCausalLM")(config).float().eval()
    if model_dir.is_dir():
        remove_weights(model_dir)  # save_pretrained can leave an older index
    hf.save_pretrained(model_dir)
    if dtype == "F32" and shards == 1:
        return hf
    _rewrite_hf(model_dir, hf, dtype, shards, torch)
    return hf


def _rewrite_hf(model_dir: Path, hf: Any, dtype: str, shards: int, torch: Any) -> None:
    """save_pretrained's checkpoint again at `dtype` in `shards` files; `hf` gets the stored
    (rounded) weights."""
    saved = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    names = [k for k in ("torch_dtype", "dtype") if k in saved] or ["torch_dtype"]
    saved |= dict.fromkeys(names, "bfloat16" if dtype == "BF16" else "float32")
    state = hf.state_dict()
    tied = hf.config.tie_word_embeddings
    tensors = {n: t.detach().double().numpy() for n, t in state.items()
               if not (tied and n == "lm_head.weight")}
    stored = write(model_dir, saved, tensors, dtype, shards)
    with torch.no_grad():
        for n, a in stored.items():
            state[n].copy_(torch.from_numpy(a))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("outdir", type=Path, help="the checkpoint directory to write")
    p.add_argument("--family", choices=sorted(CONFIGS), default="qwen3",
                   help="the model family (qwen3: TINY; llama: TINY_LLAMA)")
    p.add_argument("--hf-init", action="store_true",
                   help="transformers' own random weights via save_pretrained (needs torch); "
                        "no tokenizer, no reply thread")
    p.add_argument("--dtype", type=_dtype_flag, default="F32",
                   help="the stored weights' dtype: F32 or BF16 (float32, bfloat16 too)")
    p.add_argument("--shards", type=int, default=1, help="safetensors files (1: no index)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shapes", type=Path, metavar="CONFIG_JSON",
                   help="take the sizes from this config.json (a published model's: its "
                        "layers, widths, heads, vocabulary); the family is its model_type")
    args = p.parse_args(argv)
    if args.shards < 1:
        p.error("--shards must be at least 1")
    shapes = _read_shapes(p, args.shapes) if args.shapes else None
    family = args.family if shapes is None else shapes.get("model_type", args.family)
    if family not in CONFIGS:
        p.error(f"--shapes {args.shapes}: model_type {family!r} is not one of "
                f"{', '.join(CONFIGS)}")
    if args.hf_init:
        cfg = _with_shapes(family, shapes) if shapes else CONFIGS[family]
        try:
            check_config(cfg)
        except ValueError as e:
            p.error(str(e))
        write_hf(args.outdir, cfg, args.seed, args.dtype, args.shards)
        print(f"wrote {args.outdir}: a {family} model with transformers' random weights")
        return 0
    if shapes and shapes.get("tie_word_embeddings"):
        print("tiny.py: note: the head is written untied (the reply thread needs its own); "
              "--hf-init keeps tie_word_embeddings", file=sys.stderr)
    try:
        tiny = write_tiny(args.outdir, args.dtype, args.shards, args.seed, family, shapes)
    except ValueError as e:
        p.error(str(e))
    print(f"wrote {args.outdir}: {tiny.cfg['num_hidden_layers']} layers, hidden "
          f"{tiny.cfg['hidden_size']}, vocabulary {tiny.cfg['vocab_size']}; it answers "
          f"{REPLY!r}")
    return 0


def _dtype_flag(name: str) -> str:
    try:
        return storage_dtype(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _read_shapes(p: argparse.ArgumentParser, path: Path) -> dict[str, Any]:
    """The size keys of a config.json (what the thread's weights are drawn at)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        p.error(f"--shapes {path}: {e}")
    if not isinstance(raw, dict) or not all(type(raw.get(k)) is int and raw[k] > 0
                                            for k in SIZE_KEYS):
        p.error(f"--shapes {path}: a config.json with positive integer {', '.join(SIZE_KEYS)}")
    keep = ("model_type", *SIZE_KEYS, *ARITHMETIC_KEYS, "tie_word_embeddings")  # (--hf-init's)
    return {k: v for k, v in raw.items() if k in keep}


def _with_shapes(family: str, shapes: dict[str, Any]) -> dict[str, Any]:
    """The family's tiny config with `shapes`' sizes; an arithmetic key `shapes` lacks is
    left out (the family's default applies, as for the published config; head_dim written
    out, so the weights are drawn at the engine's size)."""
    family = shapes.get("model_type", family)
    kept = {k: v for k, v in family_config(family).items() if k not in ARITHMETIC_KEYS}
    fam = _engine("families").FAMILIES[family]
    head_dim = shapes["hidden_size"] // shapes["num_attention_heads"] \
        if fam.head_dim_from_heads else fam.defaults["head_dim"]
    return {**kept, "head_dim": head_dim, **shapes}


if __name__ == "__main__":
    sys.exit(main())
