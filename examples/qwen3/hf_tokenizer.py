"""The checkpoint's own tokenizer: its `tokenizer.json` read by Hugging Face `tokenizers` (the
Rust library transformers' fast tokenizers wrap), with the named special tokens of its
`tokenizer_config.json`; no network, nothing but the checkpoint's files.

`Detokenizer` turns generated ids into text as they come: a byte-level BPE token can hold part
of a UTF-8 character (an emoji is often four tokens of one byte each), and some decoders treat
the first token of a sequence differently, so decoding each token alone prints garbage. It
decodes a short window of ids instead and hands out only the text that is complete.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from config import read_json_object, read_text
from optional_deps import need

# transformers' named special tokens (its `special_tokens_map`): the chat template sees them
SPECIAL_NAMES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
                 "mask_token")
REPLACEMENT = "\ufffd"  # what a decoder gives for bytes that are not a whole character yet


class TokenizerError(ValueError):
    """The checkpoint's tokenizer files are missing or unreadable: the message names the file."""


@dataclass
class Tokenizer:
    tok: Any  # a tokenizers.Tokenizer
    config: dict[str, Any]  # tokenizer_config.json ({} when there is none)
    special: dict[str, str]  # the named special tokens set in tokenizer_config.json

    @staticmethod
    def load(model_dir: str | Path) -> Tokenizer:
        model_dir = Path(model_dir)
        path = model_dir / "tokenizer.json"
        if not path.exists():
            raise TokenizerError(f"{model_dir}: no tokenizer.json (the Hugging Face tokenizer "
                                 "file) in the model directory; --prompt and --chat need it "
                                 "(--prompt-ids does not)")
        tokenizers = need("tokenizers")
        text = read_text(path, TokenizerError)
        try:
            tok = tokenizers.Tokenizer.from_str(text)
        except Exception as e:  # the library raises plain Exception for a malformed file
            raise TokenizerError(f"{path}: not a tokenizer the 'tokenizers' package can read "
                                 f"({e})") from None
        config = read_tokenizer_config(model_dir)
        return Tokenizer(tok, config, special_tokens(config))

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """`text`'s ids. `add_special_tokens`: the tokenizer's post-processor adds what it adds
        around a sequence (a BOS token for some models, nothing for Qwen), as `tokenizer(text)`
        does in transformers; a rendered chat template already holds its control tokens."""
        return list(self.tok.encode(text, add_special_tokens=add_special_tokens).ids)

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return str(self.tok.decode(ids, skip_special_tokens=skip_special_tokens))

    def detokenizer(self) -> Detokenizer:
        return Detokenizer(self.decode)


def read_tokenizer_config(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "tokenizer_config.json"
    return read_json_object(path, TokenizerError) if path.exists() else {}


def special_tokens(config: dict[str, Any]) -> dict[str, str]:
    """The named special tokens tokenizer_config.json sets (a string, or an AddedToken object
    with its text under 'content'); unset and null ones are left out, as transformers does."""
    out: dict[str, str] = {}
    for name in SPECIAL_NAMES:
        value = config.get(name)
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            out[name] = value
    return out


@dataclass
class Detokenizer:
    """Incremental decoding: `push(ids)` returns the text those ids complete.

    The ids from `prefix` on are decoded twice, without and with the ids not yet printed
    (`read` on); the difference is new text unless it ends in a partial character (U+FFFD),
    which waits for the next ids. Decoding a window that starts a few tokens back, rather than
    the new ids alone, keeps decoders that treat a sequence's first token specially (a leading
    space dropped) from changing the text. `flush()` returns what is left at the end."""
    decode: Callable[[list[int]], str]
    ids: list[int] = field(default_factory=list)
    prefix: int = 0
    read: int = 0

    def push(self, ids: list[int]) -> str:
        self.ids += ids
        before = self.decode(self.ids[self.prefix:self.read])
        after = self.decode(self.ids[self.prefix:])
        if len(after) <= len(before) or after.endswith(REPLACEMENT):
            return ""
        self.prefix, self.read = self.read, len(self.ids)
        return after[len(before):]

    def flush(self) -> str:
        before = self.decode(self.ids[self.prefix:self.read])
        after = self.decode(self.ids[self.prefix:])
        self.prefix = self.read = len(self.ids)
        return after[len(before):]
