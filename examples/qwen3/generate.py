"""Text generation with the engine (Qwen3, Llama 3.x): a prompt or a chat in, text streamed out.

    python examples/qwen3/generate.py --model DIR --prompt "text"
    python examples/qwen3/generate.py --model DIR --chat --prompt "Hi" [--system S] [--no-thinking]
    python examples/qwen3/generate.py --model DIR --chat            # one user turn per stdin line
    python examples/qwen3/generate.py --model DIR --prompt-ids 1,2,3
        [--max-new-tokens N] [--greedy | --do-sample] [--temperature T] [--top-k K]
        [--top-p P] [--seed S] [--dtype float32|bfloat16] [--kv-dtype float32|bfloat16]
        [--eager] [--step-prefill] [--pdl [entry|prefetch]] [--fuse-norms] [--json]
        [--progress]
    torchrun --nproc-per-node N examples/qwen3/generate.py --model DIR --prompt "text" --tp N
        [--tp-backend nccl|gloo] [--tp-graph]

DIR is a Hugging Face checkpoint directory of a family the engine runs, Qwen3 or Llama 3.x
(config.json's model_type, else its architectures, says which; another family is an error that
names it): config.json and *.safetensors, and for text its tokenizer.json (and
tokenizer_config.json with the chat template for --chat). The text is streamed to stdout as it
is generated, and generation stops at the end-of-sequence ids of generation_config.json (else
config.json) or after --max-new-tokens; the sampling defaults are generation_config.json's,
which the flags override (checked first: values the sampler cannot take are errors). Prompt +
new tokens are held to the model's context (config.json's max_position_embeddings): new tokens
past it are cut with a warning, a prompt that leaves no room is an error. --json prints one
JSON object instead (per turn with a chat on stdin): the ids, the text and the timings.
--prompt-ids takes and prints token ids and needs no tokenizer.

Runs on the GPU when there is one, otherwise on the interpreter (tiny configs; CUTILE_BACKEND
forces one). The prompt is prefilled in one batched pass; each decode step is one replay of a
captured graph (--eager: the kernels one by one, for debugging; --step-prefill: one decode step
per prompt token). Needs cutile's [models] extra (safetensors, tokenizers, jinja2).

--tp N splits the model over the N processes torchrun starts (tensor parallel, tp.py; needs
torch): each process takes its rank's device (CUTILE_DEVICE, default LOCAL_RANK modulo the
GPUs seen) and joins torch.distributed with --tp-backend (nccl on CUDA, gloo on the
interpreter by default); rank 0 prints, the others stay quiet.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import footprint as fp
from chat_template import ChatTemplateError, load_template, render
from config import ConfigError, ModelConfig, load_config
from generation_config import Defaults, GenerationConfigError, load_defaults
from hf_tokenizer import Tokenizer, TokenizerError
from kernel_table import PDL_MODES
from model import DTYPES, Engine, Sampling, check_ids
from optional_deps import MissingExtra
from progress_bar import Bar
from tp import SINGLE, TensorParallel
from weights import WeightsError, checkpoint_bytes, load_weights

import cutile as ct

GREEDY = Sampling()
NEW_TOKENS = 256  # --max-new-tokens when neither the flag nor generation_config.json sets it
STREAM_CHUNK = 1  # decode steps between reads while text streams
WATCH_CHUNK = 16  # decode steps between reads when only watching for the end of sequence
# the sampler's scalar arguments (decode_kernels.sample_next*): seed i64, inv_t = 1/T f32
SEED_RANGE = (-(2**63), 2**63 - 1)
F32_OVERFLOW = 2.0**128 - 2.0**103  # the smallest number float32 rounds to infinity
MIN_TEMPERATURE = 1 / F32_OVERFLOW  # below it 1/T is no float32 (about 2.94e-39)
ERRORS = (ConfigError, WeightsError, TokenizerError, ChatTemplateError, GenerationConfigError,
          MissingExtra, fp.DoesNotFit, ValueError)


@dataclass
class Result:
    tokens: list[int]
    prefill_s: float
    decode_tokens_per_s: float | None  # None when no token came from a timed decode step
    finish_reason: str = "length"  # "eos": stopped at one of the `stop` ids (kept, last)


class _Watch:
    """The new tokens read back while generating: cut after the first stop id."""

    def __init__(self, stop: Collection[int], on_tokens: Callable[[list[int]], None] | None):
        self.stop, self.on_tokens = frozenset(stop), on_tokens
        self.tokens: list[int] = []
        self.done = False

    def take(self, new: list[int]) -> None:
        for i, t in enumerate(new):
            if t in self.stop:
                new, self.done = new[:i + 1], True
                break
        self.tokens += new
        if self.on_tokens is not None and new:
            self.on_tokens(new)


def generate(model: Engine, prompt: list[int], max_new_tokens: int,
             sampling: Sampling = GREEDY, eager: bool = False, step_prefill: bool = False, *,
             stop: Collection[int] = (), on_tokens: Callable[[list[int]], None] | None = None,
             chunk: int = STREAM_CHUNK) -> Result:
    """The prompt in one batched prefill (GEMMs and attention over its rows; `step_prefill`:
    one decode step per prompt token instead), which picks the first new token; then up to
    max_new_tokens - 1 decode steps. The decode rate is timed over the steps after the first
    (that one captures the graph).

    Without `stop` and `on_tokens` the decode steps run with no read between them. With them,
    the new tokens are read every `chunk` steps, handed to `on_tokens` as they come, and
    generation ends after the first id in `stop` (the steps of a chunk past it are dropped)."""
    model.reset(prompt, max_new_tokens, sampling)
    n, left = len(prompt), max_new_tokens - 1
    watch = _Watch(stop, on_tokens)
    if not stop and on_tokens is None:
        chunk = max(left, 1)  # nothing to watch: every decode step, then one read
    t0 = time.perf_counter()
    graph = None
    if not step_prefill:
        model.prefill(eager)
    elif eager:
        model.run_eager(n)
    else:
        graph = model.capture()  # runs the step at position 0
        for _ in range(n - 1):
            graph.replay()
    first = model.tokens(n, 1)  # waits for the first new token
    prefill_s = time.perf_counter() - t0
    watch.take(first)
    if left and graph is None and not watch.done:
        if eager:  # the first decode step (with the capture): not timed
            model.run_eager(1)
        else:
            graph = model.capture()
        left -= 1
        watch.take(model.tokens(n + 1, 1))  # waits for it
    t1 = time.perf_counter()
    timed = 0
    while left and not watch.done:
        k, made = min(chunk, left), max_new_tokens - left
        if eager:
            model.run_eager(k)
        else:
            for _ in range(k):
                assert graph is not None
                graph.replay()
        left, timed = left - k, timed + k
        watch.take(model.tokens(n + made, k))  # waits for the chunk
    decode_s = time.perf_counter() - t1
    if graph is not None:
        graph.sync()
    return Result(watch.tokens, prefill_s, timed / decode_s if timed else None,
                  "eos" if watch.done else "length")


# -- the command line -----------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    _check_args(p, args)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`| head`)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (the interpreter closes it at exit)
        return 1
    except ERRORS as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ct.CutileError as e:  # a launch or a device failure: its own coded message
        print(f"error: {e}", file=sys.stderr)
        return 1
    except MemoryError:  # the estimate let it through, the host could not give it
        print(f"error: {fp.CT412} the host ran out of memory (reading the checkpoint widens its "
              "weights to float32 on the host; on the interpreter the model and its KV cache "
              "live there too)", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[2:9]))
    p.add_argument("--model", required=True, help="checkpoint directory")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--prompt", help="the prompt text (with --chat: the user's message)")
    given.add_argument("--prompt-ids", help="the prompt as comma-separated token ids")
    p.add_argument("--chat", action="store_true",
                   help="render the checkpoint's chat template; without --prompt, one user "
                        "turn per line of stdin")
    p.add_argument("--system", help="a system message (with --chat)")
    p.add_argument("--no-thinking", action="store_true",
                   help="with --chat: enable_thinking=False for the template (Qwen3: no "
                        "<think> block)")
    p.add_argument("--max-new-tokens", type=int,
                   help=f"at most this many new tokens (default: generation_config.json's, "
                        f"else {NEW_TOKENS}; cut at the model's context)")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="float32",
                   help="the matrices' dtype on the device")
    p.add_argument("--kv-dtype", choices=sorted(DTYPES),
                   help="the KV cache's dtype (default: --dtype's)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--greedy", action="store_true", help="always the most likely token")
    mode.add_argument("--do-sample", action="store_true", help="sample (top-k, top-p)")
    p.add_argument("--temperature", type=float,
                   help="0: greedy; > 0: sample at this temperature (default: "
                        "generation_config.json's)")
    p.add_argument("--top-k", type=int, help="sample from the K largest (0: all)")
    p.add_argument("--top-p", type=float, help="then from mass P of those (0 < P <= 1)")
    p.add_argument("--seed", type=int, default=0,
                   help="the Philox key of the draws (a signed 64-bit integer)")
    p.add_argument("--eager", action="store_true", help="launch one by one, no graph")
    p.add_argument("--step-prefill", action="store_true",
                   help="prefill with one decode step per prompt token (not batched)")
    p.add_argument("--pdl", nargs="?", const="prefetch", choices=PDL_MODES,
                   help="launch each kernel as a programmatic dependent launch (sm_90+): the "
                        "graph's kernels overlap at their boundaries, the same tokens; entry: "
                        "each waits first thing, prefetch (the default): the matrix-vector "
                        "kernels load their first weight tile before waiting")
    p.add_argument("--fuse-norms", action="store_true",
                   help="each RMSNorm inside the projection that reads it (6 launches a layer "
                        "instead of 8; the same tokens up to rounding)")
    p.add_argument("--json", action="store_true", help="print one JSON object (per turn)")
    p.add_argument("--progress", action="store_true",
                   help="show the loading progress on stderr also when it is not a terminal")
    p.add_argument("--tp", type=int, default=1,
                   help="tensor parallel over this many processes (start them with torchrun "
                        "--nproc-per-node N)")
    p.add_argument("--tp-backend", choices=("nccl", "gloo"),
                   help="torch.distributed's backend (default: nccl on CUDA, gloo on the "
                        "interpreter)")
    p.add_argument("--tp-graph", action="store_true",
                   help="capture the collectives in the step's CUDA graph (NCCL only; "
                        "untested); otherwise a tensor-parallel step is one synced .then chain")
    return p


def _check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.prompt is None and args.prompt_ids is None and not args.chat:
        p.error("give --prompt TEXT, --prompt-ids IDS, or --chat")
    if args.prompt_ids is not None and args.chat:
        p.error("--chat renders text through the chat template: use --prompt, not --prompt-ids")
    if (args.system is not None or args.no_thinking) and not args.chat:
        p.error("--system and --no-thinking go with --chat")
    if args.max_new_tokens is not None and args.max_new_tokens < 1:
        p.error("--max-new-tokens must be at least 1")
    for problem in _sampling_flag_problems(args):
        p.error(problem)
    if args.tp < 1:
        p.error("--tp must be at least 1")
    if args.tp_graph and args.tp == 1:
        p.error("--tp-graph goes with --tp N (N > 1)")
    if args.tp > 1 and args.chat and args.prompt is None:
        p.error("--tp runs one --prompt (a chat on stdin would need every rank to read it)")
    world = os.environ.get("WORLD_SIZE")
    if args.tp > 1 and world != str(args.tp):
        p.error(f"--tp {args.tp} needs {args.tp} processes started by torchrun "
                f"--nproc-per-node {args.tp} (WORLD_SIZE is {world or 'not set'})")


def temperature_problem(t: float) -> str | None:
    """Why `t` cannot be the sampler's temperature (None: it can): a finite number >= 0 whose
    inverse, which the sampler multiplies the logits by in float32, is finite there too."""
    if not math.isfinite(t) or t < 0:
        return f"must be a finite number >= 0 (0: greedy), not {t!r}"
    if t > 0 and 1 / t >= F32_OVERFLOW:
        return (f"{t!r} is too small: sampling multiplies the logits by 1/temperature in "
                f"float32, which needs a temperature above {MIN_TEMPERATURE:.3g}; for greedy "
                "decoding use 0 or --greedy")
    return None


def _sampling_flag_problems(args: argparse.Namespace) -> list[str]:
    """The sampling flags' values the sampler cannot take, each said in words."""
    out = []
    t = args.temperature
    if t is not None and (why := temperature_problem(t)) is not None:
        out.append(f"--temperature {why}")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        out.append(f"--top-p must be a number in (0, 1] (1: no top-p filter), not "
                   f"{args.top_p!r}")
    if args.top_k is not None and args.top_k < 0:
        out.append(f"--top-k must be >= 0 (0: no top-k filter), not {args.top_k}")
    lo, hi = SEED_RANGE
    if not lo <= args.seed <= hi:
        out.append(f"--seed must fit in a signed 64-bit integer ({lo}..{hi}), not {args.seed}")
    return out


def sampling_from(args: argparse.Namespace, d: Defaults) -> tuple[Sampling, dict[str, Any]]:
    """The sampling settings: generation_config.json's, each overridden by its flag.
    --greedy / --do-sample choose the mode; a --temperature alone does too (0: greedy,
    above: sampling, as in the engine's first CLI)."""
    if args.greedy or args.do_sample:
        sample = bool(args.do_sample)
    elif args.temperature is not None:
        sample = args.temperature > 0
    else:
        sample = d.do_sample
    temperature = d.temperature if args.temperature is None else args.temperature
    top_k = d.top_k if args.top_k is None else args.top_k
    top_p = d.top_p if args.top_p is None else args.top_p
    sample = sample and temperature > 0
    if sample and (why := temperature_problem(temperature)) is not None:  # (flags: checked)
        raise GenerationConfigError(f"generation_config.json's temperature {why}")
    shown = {"do_sample": sample, "temperature": temperature, "top_k": top_k, "top_p": top_p,
             "seed": args.seed}
    return (Sampling(temperature, top_k, top_p, args.seed) if sample else GREEDY), shown


@dataclass
class _Session:
    """What one run of the CLI holds: the loaded model and how to turn text into prompts."""
    args: argparse.Namespace
    cfg: ModelConfig
    defaults: Defaults
    tokenizer: Tokenizer | None
    template: str | None
    sampling: Sampling
    shown: dict[str, Any]
    model: Engine | None = None
    warm: bool = False
    tp: TensorParallel = SINGLE


def _join(args: argparse.Namespace) -> TensorParallel:
    """With --tp > 1: this process's device, then its place in the group; ranks other than 0
    stay quiet (their stdout and stderr go to /dev/null)."""
    if args.tp == 1:
        return SINGLE
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise MissingExtra("--tp needs torch (torch.distributed), which is not installed: "
                           "pip install torch") from None

    local = int(os.environ.get("LOCAL_RANK", os.environ.get("RANK", "0")))
    if "CUTILE_DEVICE" not in os.environ and torch.cuda.is_available():
        os.environ["CUTILE_DEVICE"] = str(local % torch.cuda.device_count())
    from tp import from_env

    tp = from_env(args.tp_backend)
    if tp.rank > 0:
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (closed at exit)
    return tp


def _run(args: argparse.Namespace) -> int:
    tp = _join(args)
    try:
        return _run_on(args, tp)
    finally:
        if tp.world > 1:
            import torch.distributed as dist  # type: ignore[import-not-found, unused-ignore]

            dist.destroy_process_group()


def _run_on(args: argparse.Namespace, tp: TensorParallel) -> int:
    model_dir = Path(args.model)
    if not model_dir.is_dir():
        what = "is not a directory" if model_dir.exists() else "does not exist"
        raise ConfigError(f"--model {args.model}: {what} (expected a checkpoint directory "
                          "with config.json and *.safetensors)")
    cfg = load_config(model_dir)
    defaults = load_defaults(model_dir)
    for item in defaults.ignored:
        print(f"warning: generation_config.json: {item} is not supported by this engine; "
              "ignored", file=sys.stderr)
    tokenizer = None if args.prompt_ids is not None else Tokenizer.load(model_dir)
    template = load_template(model_dir, tokenizer.config) if args.chat and tokenizer else None
    sampling, shown = sampling_from(args, defaults)
    s = _Session(args, cfg, defaults, tokenizer, template, sampling, shown, tp=tp)
    system = [] if args.system is None else [{"role": "system", "content": args.system}]
    if not args.chat:
        _answer(s, _prompt_ids(args) if tokenizer is None else _encode(tokenizer, args.prompt))
    elif args.prompt is not None:
        _answer(s, _chat_prompt(s, [*system, {"role": "user", "content": args.prompt}]))
    else:
        _conversation(s, system)
    return 0


def _prompt_ids(args: argparse.Namespace) -> list[int]:
    try:
        return [int(t) for t in args.prompt_ids.split(",")]
    except ValueError:
        raise ValueError(f"--prompt-ids: expected integers separated by commas, got "
                         f"{args.prompt_ids!r}") from None


def _encode(tokenizer: Tokenizer, prompt: str) -> list[int]:
    ids = tokenizer.encode(prompt)
    if not ids:  # (a tokenizer that adds a BOS token gives it even for "")
        what = "is empty" if not prompt else f"{prompt!r} encodes to no tokens"
        raise ValueError(f"--prompt {what}: the model needs at least one prompt token")
    return ids


def _chat_prompt(s: _Session, messages: list[dict[str, Any]]) -> list[int]:
    assert s.tokenizer is not None and s.template is not None
    extra = {"enable_thinking": False} if s.args.no_thinking else {}
    text = render(s.template, messages, True, s.tokenizer.special, **extra)
    return s.tokenizer.encode(text, add_special_tokens=False)  # the template has its tokens


def _conversation(s: _Session, system: list[dict[str, Any]]) -> None:
    """One user turn per line of stdin; each answer joins the conversation the next turn's
    prompt renders (the whole conversation is prefilled again each turn)."""
    messages = list(system)
    for line in _user_lines():
        messages.append({"role": "user", "content": line})
        text = _answer(s, _chat_prompt(s, messages))
        messages.append({"role": "assistant", "content": text})


def _user_lines() -> Iterator[str]:
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            print("> ", end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            yield line.rstrip("\r\n")  # a CRLF line ends the turn as an LF line does


def _new_tokens(s: _Session, prompt: list[int]) -> int:
    """The new tokens asked for (the flag, else generation_config.json's, else NEW_TOKENS),
    held to the model's context (fit_context)."""
    if s.args.max_new_tokens is not None:
        new = int(s.args.max_new_tokens)
    else:
        new = s.defaults.new_tokens(len(prompt), NEW_TOKENS)
    fitted, warning = fit_context(len(prompt), new, s.cfg.max_position_embeddings)
    if warning is not None:
        print(f"warning: {warning}", file=sys.stderr)
    return fitted


def fit_context(prompt_len: int, new: int, context: int) -> tuple[int, str | None]:
    """The new tokens that fit the model's context after the prompt, as llama-cli stops at a
    full context: a prompt that leaves no room is an error (ValueError), new tokens past the
    context are cut there (with the warning to print, else None)."""
    where = f"the model's context of {context} tokens (max_position_embeddings in config.json)"
    if prompt_len >= context:
        raise ValueError(f"the prompt is {prompt_len} tokens and {where} leaves no room for a "
                         "new token")
    if prompt_len + new <= context:
        return new, None
    return context - prompt_len, (f"{prompt_len} prompt tokens + {new} new tokens would pass "
                                  f"{where}: generating at most {context - prompt_len} new "
                                  "tokens")


def _load(s: _Session, prompt_len: int, new_tokens: int) -> None:
    """Checks that the model fits, then reads the weights and copies them to the device (with
    a progress bar on a terminal or with --progress); the first call only."""
    if s.model is not None:
        return
    args, cfg = s.args, s.cfg
    kv = args.kv_dtype or args.dtype
    fp.check(fp.estimate(cfg, args.dtype, kv, prompt_len, new_tokens, world=s.tp.world),
             args.dtype, kv, *fp.free_memory())
    show = s.tp.rank == 0 and (args.progress or sys.stderr.isatty())
    reading = Bar("reading weights ", checkpoint_bytes(args.model), "bytes", show)
    weights = load_weights(args.model, cfg, reading.advance)
    reading.close()
    copying = Bar("weights to device", cfg.num_hidden_layers, "layers", show)
    s.model = Engine(cfg, weights, args.dtype, kv_dtype=args.kv_dtype, progress=copying.advance,
                     tp=s.tp, pdl=args.pdl, fuse_norms=args.fuse_norms)
    s.model.graph_collectives = args.tp_graph
    copying.close()


def _answer(s: _Session, prompt: list[int]) -> str:
    """Generates after `prompt` (loading the model first, on the first call): streams the text
    (or prints the JSON object); returns the text (the ids as text when there is no
    tokenizer)."""
    check_ids(prompt, s.cfg.vocab_size)  # a bad id is an error before the weights are read
    new = _new_tokens(s, prompt)
    _load(s, len(prompt), new)
    model, args = s.model, s.args
    assert model is not None
    if not s.warm and not s.defaults.eos:
        print("warning: the checkpoint names no end-of-sequence id (eos_token_id in "
              "generation_config.json or config.json): each answer runs to --max-new-tokens",
              file=sys.stderr)
    if not s.warm:  # compiles every kernel, so the timings exclude the JIT
        generate(model, prompt, min(2, new), s.sampling, args.eager, args.step_prefill)
        s.warm = True
    stream = s.tokenizer is not None and not args.json
    detok = s.tokenizer.detokenizer() if s.tokenizer is not None else None

    def show(ids: list[int]) -> None:
        assert detok is not None
        sys.stdout.write(detok.push(ids))
        sys.stdout.flush()

    result = generate(model, prompt, new, s.sampling, args.eager, args.step_prefill,
                      stop=s.defaults.eos, on_tokens=show if stream else None,
                      chunk=STREAM_CHUNK if stream else WATCH_CHUNK)
    text = None if s.tokenizer is None else s.tokenizer.decode(result.tokens)
    if args.json:  # the same object with and without a tokenizer, less the text without
        out: dict[str, Any] = {
            "tokens": result.tokens, "prefill_s": result.prefill_s,
            "decode_tokens_per_s": result.decode_tokens_per_s, "backend": ct.backend_name(),
            "prompt_tokens": prompt, **({} if text is None else {"text": text}),
            "finish_reason": result.finish_reason, "sampling": s.shown}
        print(json.dumps(out, ensure_ascii=False), flush=True)
    else:
        if detok is not None:
            print(detok.flush(), flush=True)
        else:
            print(f"tokens: {' '.join(map(str, result.tokens))}", flush=True)
        print(_summary(result), file=sys.stderr)
    return " ".join(map(str, result.tokens)) if text is None else text


def _summary(r: Result) -> str:
    """The stderr line after an answer (text or ids): counts, why it ended, timings."""
    n, rate = len(r.tokens), r.decode_tokens_per_s
    why = "end of sequence" if r.finish_reason == "eos" else "the token limit"
    return (f"[{n} token{'' if n == 1 else 's'}, {why}; prefill {r.prefill_s:.3f} s, decode "
            f"{'n/a' if rate is None else f'{rate:.1f} tokens/s'} on {ct.backend_name()}]")


if __name__ == "__main__":
    sys.exit(main())
