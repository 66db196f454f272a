"""The checkpoint's chat template, rendered as transformers' `apply_chat_template` renders it.

The template is the checkpoint's `chat_template.jinja` or else the `chat_template` entry of its
`tokenizer_config.json` (a string, or a list of named templates: the one named "default"), the
order transformers loads them in. It is Jinja2 run in the environment transformers gives chat
templates, rebuilt here (same output, own code):

- a sandbox that cannot change its inputs (templates come from the internet);
- `trim_blocks` and `lstrip_blocks`: a block tag's line leaves no newline or indentation;
- the `loopcontrols` extension (`break`, `continue`) and a `{% generation %}` block, which
  transformers uses to find the assistant's text and which renders as its body;
- `tojson` as `json.dumps` (non-ASCII kept, no HTML escaping; indent, separators, sort_keys);
- globals `raise_exception(message)` (the template rejects the conversation), `strftime_now(fmt)`,
  `dict(...)`, and a `namespace(...)` that refuses names starting with an underscore;
- the variables `messages`, `tools` and `documents` (None here), `add_generation_prompt`, the
  tokenizer's named special tokens (`eos_token`, ...) and any extra keywords, such as Qwen3's
  `enable_thinking`.

Messages are passed as transformers passes them: keys whose value is None dropped, and a
message's reasoning (under `reasoning_content`, `thinking` or `reasoning`) under both
`reasoning_content` and `thinking`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from config import read_text
from optional_deps import MissingExtra, need

MIN_JINJA = (3, 1, 6)  # older versions have known sandbox escapes
REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")

Message = dict[str, Any]


class ChatTemplateError(ValueError):
    """No template, a template Jinja cannot parse, or one that rejects the conversation."""


def load_template(model_dir: Path, tokenizer_config: Mapping[str, Any]) -> str:
    """The checkpoint's chat template text (see the module's docstring for where from)."""
    jinja_file = model_dir / "chat_template.jinja"
    if jinja_file.exists():
        return read_text(jinja_file, ChatTemplateError)
    entry = tokenizer_config.get("chat_template")
    if isinstance(entry, str):
        return entry
    if isinstance(entry, list):
        named = {t.get("name"): t.get("template") for t in entry if isinstance(t, dict)}
        default = named.get("default")
        if isinstance(default, str):
            return default
        raise ChatTemplateError(f"{model_dir / 'tokenizer_config.json'}: 'chat_template' lists "
                                f"templates {sorted(map(str, named))} but none named 'default'")
    raise ChatTemplateError(f"{model_dir}: the checkpoint has no chat template (neither "
                            "chat_template.jinja nor a 'chat_template' entry in "
                            "tokenizer_config.json); use --prompt without --chat")


def render(template: str, messages: list[Message], add_generation_prompt: bool = True,
           special_tokens: Mapping[str, str] | None = None, **kwargs: Any) -> str:
    """The prompt text for `messages`, as `tokenizer.apply_chat_template(messages,
    tokenize=False, add_generation_prompt=..., **kwargs)` gives it."""
    jinja2 = need("jinja2")
    compiled = _compile(template)
    variables = {**(special_tokens or {}), **kwargs}
    try:
        return str(compiled.render(messages=[_as_passed(m) for m in messages], tools=None,
                                   documents=None, add_generation_prompt=add_generation_prompt,
                                   **variables))
    except jinja2.TemplateError as e:  # raise_exception, a sandbox refusal, an undefined call
        raise ChatTemplateError(f"the chat template failed on this conversation: {e}") from None


def _as_passed(message: Message) -> Message:
    out = {k: v for k, v in message.items() if v is not None}
    reasoning = next((out[k] for k in REASONING_KEYS if k in out), None)
    if reasoning is not None:
        out = {"thinking": reasoning, **out, "reasoning_content": reasoning}
    return out


@functools.lru_cache(maxsize=8)
def _compile(template: str) -> Any:
    jinja2 = need("jinja2")
    version = tuple(int(p) for p in jinja2.__version__.split(".")[:3] if p.isdigit())
    if version < MIN_JINJA:
        raise MissingExtra(f"chat templates need jinja2 >= {'.'.join(map(str, MIN_JINJA))} "
                           f"(older versions have sandbox escapes); this is {jinja2.__version__}:"
                           " pip install -U 'cutile[models]'")
    try:
        return _environment().from_string(template)
    except jinja2.TemplateSyntaxError as e:
        raise ChatTemplateError(f"the chat template is not valid Jinja (line {e.lineno}: "
                                f"{e.message})") from None


@functools.cache
def _environment() -> Any:
    import jinja2
    import jinja2.ext
    import jinja2.nodes
    import jinja2.utils
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class GenerationBlock(jinja2.ext.Extension):
        """`{% generation %}...{% endgeneration %}` renders as its body."""
        tags = {"generation"}  # noqa: RUF012 (Jinja reads the class attribute)

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body) \
                .set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return str(caller())

    class Namespace(jinja2.utils.Namespace):
        """Jinja's namespace without underscore names (no way to reach Python internals)."""

        def __init__(*args: Any, **kwargs: Any) -> None:
            self, attrs = args[0], dict(*args[1:], **kwargs)
            for name in attrs:
                _plain_name(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            _plain_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

    def _plain_name(name: object) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"a chat template cannot set {name!r} on a namespace (names starting with an "
                "underscore are refused)")

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals |= {"raise_exception": _raise_exception, "strftime_now": _strftime_now,
                    "dict": _Dict(), "namespace": Namespace}
    return env


def _raise_exception(message: str) -> None:
    import jinja2

    raise jinja2.exceptions.TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class _Dict:
    """`dict(...)` and `dict.fromkeys(...)` for templates, and nothing else of the type."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, keys: Any, value: Any = None) -> dict[Any, Any]:
        return dict.fromkeys(keys, value)
