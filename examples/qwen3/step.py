"""The decode step: the model's ops (layers.py) lowered onto one-row kernels (decode_kernels.py).

The position is read on the device, so every launch's arguments stay the same from one step
to the next (the step is captured once as a CUDA graph). Two choices of this lowering: a
residual projection and the norm of its output are one pair of launches, a GEMV split over K
into partial sums and `add_rms_norm`, which adds them to the residual and normalizes (for a
narrow matrix, more blocks than the outputs alone give); attention is split over the cache in
parts per head (flash decoding) with the new token's q/k norm and RoPE computed inside it, then
merged, the merge appending the new key and value rows to the cache (a layer is 8 launches).
Each op's buffers are declared as it is lowered, so `reset` allocates exactly what the links
name (besides the KV cache and the token state).

Split over ranks (tensor parallel, layers.SHARDS): each rank runs the same links on its heads
and its slice of the MLP and of the vocabulary; an `AllReduce` becomes a host link that sums
the split GEMV's partial sums over the ranks before `add_rms_norm` adds the residual (on every
rank, each holding the whole residual), and a vocabulary-split head gathers every rank's block
maxima (greedy) or logits (sampling) so that each rank picks the same token (tp.py). Sampling
with a small top-k on one rank draws over the head's top blocks only (sample_next_blocks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from layers import AllReduce, Attend, Embed, Head, Matrix, Norm, Op, Project, Rope, SwiGLU
from links import HostLink, Link, Links
from tuning import Gemv, pow2

import cutile as ct

if TYPE_CHECKING:
    from model import Engine, Sampling

Shape = tuple[int, ...]
# top-k up to this many tokens draws over the LM head's blocks that can hold them (at most one
# block per kept token: decode_kernels.sample_next_blocks); a larger one walks the whole row
GATHERED_TOP_K = 64


class Step:
    """The links of one decode step of `m` and the float32 buffers they use (`shapes`)."""

    def __init__(self, m: Engine) -> None:
        self.m, self.k, self.c = m, m.kernels, m.cfg
        self.hp = (1, pow2(m.cfg.hidden_size))
        self.shapes: dict[str, tuple[Shape, Any]] = {}  # name -> (shape, dtype)
        self.ropes: dict[str, Rope] = {}  # a Rope lowered with its Attend, by its query buffer

    def buffer(self, name: str, shape: Shape, dtype: Any = ct.f32) -> str:
        if self.shapes.setdefault(name, (shape, dtype)) != (shape, dtype):
            raise ValueError(f"decode step: buffer '{name}' is used as {self.shapes[name]} and "
                             f"as {(shape, dtype)}")
        return name

    def act(self, name: str, width: int | None = None) -> str:
        """An activation row (its width from the model's table unless given)."""
        return self.buffer(name, (1, self.m.widths[name] if width is None else width))

    def links(self, ops: list[Op], sampling: Sampling) -> Links:
        if self.m.fuse_norms:
            return self.fused_links(ops, sampling)
        out: Links = []
        i = 0
        while i < len(ops):
            op = ops[i]
            if isinstance(op, Project) and op.residual is not None:
                reduce = i + 1 < len(ops) and ops[i + 1] == AllReduce(op.out)
                nxt = ops[i + 1 + reduce] if i + 1 + reduce < len(ops) else None
                if not isinstance(nxt, Norm) or nxt.src != op.out:
                    raise ValueError("decode step: a residual projection must be followed by "
                                     "the norm of its output")
                out += self.project_add_norm(op, nxt, reduce)
                i += 2 + reduce
                continue
            out += self.head(op, sampling) if isinstance(op, Head) else self.lower(op)
            i += 1
        return out

    def fused_links(self, ops: list[Op], sampling: Sampling) -> Links:
        """The ops with each norm inside the projection that reads it (Engine(fuse_norms=True)):
        the residual stream stays the partial sums of the last residual projection, whose
        split 0 added the stream before it (gemv_residual), and is never stored as a row;
        norm_gemv / norm_gate_up add the rows and normalize in each block. A norm with no
        such reader (the LM head's input) is sum_rms_norm."""
        out: Links = []
        stream: dict[str, tuple[str, int]] = {}  # activation -> its partial sums and rows
        norms: dict[str, Norm] = {}  # norm outputs not lowered yet, by name
        for op in ops:
            src = getattr(op, "src", None)
            if isinstance(op, Norm):
                norms[op.out] = op
            elif isinstance(op, Project) and op.residual is not None:
                out.append(self.gemv_residual(op, stream[op.residual]))
                stream[op.out] = (self.parts(op), op.w.splits)
            elif src in norms and (isinstance(op, SwiGLU) or
                                   (isinstance(op, Project) and op.w.splits == 1)):
                out.append(self.norm_product(op, norms.pop(src), stream))
            elif isinstance(op, AllReduce):
                out.append(self.all_reduce(stream[op.out][0]))
            else:
                if src in norms:  # a reader that cannot normalize: the norm on its own
                    n = norms.pop(src)
                    out.append(self.sum_rms(n, stream[n.src]))
                out += self.head(op, sampling) if isinstance(op, Head) else self.lower(op)
                if isinstance(op, Embed):
                    stream[op.out] = (self.act(op.out), 1)
        return out

    def parts(self, p: Project) -> str:
        """The buffer of a residual projection's S partial sums."""
        return self.buffer(f"{p.out}_parts", (p.w.splits, p.w.n))

    def gemv_residual(self, p: Project, res: tuple[str, int]) -> Link:
        w = p.w
        return Link(self.k.matmul("gemv_residual", w.hints), (self.parts(p),), ((1, w.bn),),
                    (self.act(p.src), w.w, res[0]),
                    {"S": w.splits, "RS": res[1], "BK": w.bk, "LAT": w.latency,
                     "ADD": self.m.tp.rank == 0})

    def norm_product(self, op: Project | SwiGLU, n: Norm,
                     stream: dict[str, tuple[str, int]]) -> Link:
        """norm_gemv or norm_gate_up: the norm of `n.src`'s stream inside the product."""
        parts, rows = stream[n.src]
        consts = {"H": self.c.hidden_size, "HP": self.hp[1], "S": rows}
        weights: tuple[ct.HostTensor, ...]
        if isinstance(op, Project):
            t = Gemv(op.w.bn, op.w.bk, 1, op.w.hints, op.w.latency)
            kern, weights = "norm_gemv", (op.w.w,)
        else:  # its own role: the row in registers leaves room for fewer weight tiles
            t = self.m.tuning.gemv(op.gate.n, self.c.hidden_size, "norm_gate_up")
            kern, weights = "norm_gate_up", (op.gate.w, op.up.w)
        return Link(self.k.matmul(kern, t.hints), (self.act(op.out),), ((1, t.bn),),
                    (parts, n.weight, *weights, self.c.rms_norm_eps),
                    consts | {"BK": t.bk, "LAT": t.latency})

    def sum_rms(self, n: Norm, res: tuple[str, int]) -> Link:
        return Link(self.k.norm("sum_rms"), (self.act(n.out),), (self.hp,),
                    (res[0], n.weight, self.c.rms_norm_eps),
                    {"H": self.c.hidden_size, "S": res[1]})

    def lower(self, op: Op) -> list[Link]:
        c, m = self.c, self.m
        if isinstance(op, AllReduce):
            raise ValueError(f"decode step: {op!r} must follow a residual projection")
        if isinstance(op, Embed):
            return [Link(self.k.matmul("embed"), (self.act(op.out),), (self.hp,),
                         (m.embed, "history", "pos"))]
        if isinstance(op, Norm):
            return [Link(self.k.norm("rms"), (self.act(op.out),), (self.hp,),
                         (self.act(op.src), op.weight, c.rms_norm_eps), {"H": c.hidden_size})]
        if isinstance(op, Project):
            return [self.gemv(self.act(op.out), op.w, self.act(op.src))]
        if isinstance(op, SwiGLU):
            g = op.gate
            return [Link(self.k.matmul("gate_up", g.hints), (self.act(op.out),), ((1, g.bn),),
                         (self.act(op.src), g.w, op.up.w), {"BK": g.bk, "LAT": g.latency})]
        if isinstance(op, Rope):
            self.ropes[op.q] = op  # lowered with its Attend: the attention computes it
            return []
        if isinstance(op, Attend):
            return self.attend(op)
        raise TypeError(f"decode step: no lowering of {op!r}")

    def gemv(self, y: str, w: Matrix, x: str) -> Link:
        return Link(self.k.matmul("gemv", w.hints), (y,), ((1, w.bn),), (x, w.w),
                    {"S": w.splits, "BK": w.bk, "LAT": w.latency})

    def project_add_norm(self, p: Project, n: Norm, reduce: bool = False) -> Links:
        """out = residual + src @ W^T as S partial sums, then add_rms_norm adds them to the
        residual (into out) and normalizes (into the norm's out). `reduce`: the partial sums
        are summed over the ranks first (their sum is then the whole product)."""
        assert p.residual is not None
        h = self.c.hidden_size
        parts = self.parts(p)
        add = Link(self.k.norm("add_rms"), (self.act(p.out), self.act(n.out)), (self.hp, self.hp),
                   (self.act(p.residual), parts, n.weight, self.c.rms_norm_eps),
                   {"H": h, "S": p.w.splits})
        return [self.gemv(parts, p.w, self.act(p.src)),
                *([self.all_reduce(parts)] if reduce else []), add]

    def all_reduce(self, name: str) -> HostLink:
        comm = self.m.tp.comm
        assert comm is not None, "an AllReduce needs the tensor-parallel group's collectives"
        return HostLink(lambda buf: comm.all_reduce(buf[name]), f"all_reduce {name}")

    def all_gather(self, out: str, src: str) -> HostLink:
        comm = self.m.tp.comm
        assert comm is not None, "a split head needs the tensor-parallel group's collectives"
        return HostLink(lambda buf: comm.all_gather(buf[out], buf[src]),
                        f"all_gather {src} -> {out}")

    def attend(self, op: Attend) -> list[Link]:
        """Attention with the new token inside (its Rope's q/k norm and RoPE), then the merge
        that appends its key and value rows to the cache (decode_attention_new,
        attention_merge_append: no launch of its own for the norm, RoPE and append)."""
        rope = self.ropes.pop(op.q, None)
        if rope is None:
            raise ValueError(f"decode step: {op!r} must follow the Rope of its queries")
        c, m, d = self.c, self.m, self.c.head_dim
        nh, nkv = m.heads
        parts = (self.buffer("ao", (nh * m.splits, d)), self.buffer("am", (nh * m.splits, 1)),
                 self.buffer("al", (nh * m.splits, 1)))
        cache_shape = (nkv, m.cache_rows, d)
        slab, view = (1, 1, m.cache_rows, d), ((1, *cache_shape), cache_shape)
        qkv, cache = self.act(rope.src), (f"k{op.layer}", f"v{op.layer}")
        consts = {"NH": nh, "NKV": nkv, "G": c.group, "A": m.splits}
        norm = rope.q_norm is not None and rope.k_norm is not None
        form = "norm_rope" if norm else "rope"
        q_norms = (rope.q_norm, rope.k_norm) if norm else ()
        k_norm, eps = ((rope.k_norm,), (c.rms_norm_eps,)) if norm else ((), ())
        return [Link(self.k.attention(f"decode_new_{form}"), parts, ((1, d), (1, 1), (1, 1)),
                     (qkv, *q_norms, m.inv_freq, *cache, "pos", d ** -0.5, *eps),
                     consts | {"BN": m.cache_tile}),
                Link(self.k.attention(f"merge_append_{form}"),
                     (self.act(op.out), *cache), ((1, c.group * d), slab, slab),
                     (*parts, qkv, *k_norm, m.inv_freq, "pos", *eps),
                     consts | {"GROUPED": c.group & (c.group - 1) == 0},
                     (None, view, view))]

    def head(self, op: Head, s: Sampling) -> Links:
        """The LM head on `op.src` and the pick: history[pos + 1] = the token, pos += 1.

        Split by vocabulary (`op.vocab_split`), rank r's head holds the rows r·CH .. r·CH + CH
        (CH = ceil(V / world), the last rank's padded with zero rows); its logits are those
        CH columns. Greedy: each rank's lm_head leaves its blocks' maxima and their local
        indices; all ranks' go to every rank (an all-gather, in rank order) and greedy_sharded
        picks over them with the global index r·CH + i: the largest value, the lowest global
        index on ties, as np.argmax over the whole vocabulary. Sampling: the logits are
        gathered into the whole row (padding lanes past V are masked by the pick) and every
        rank runs the same seeded draw on the same bytes: the same token, no broadcast."""
        if s.temperature <= 0:
            return self.greedy(op)
        return self.sampled(op, s)

    def head_with_maxima(self, src: str) -> tuple[Link, str, str, str]:
        """lm_head: this rank's logits, and each block's largest one and its local index (the
        link and the three buffers)."""
        c, m, w = self.c, self.m, self.m.lm_head
        ch, nb = m.vocab_rows, m.head_blocks
        local_v = max(0, min(ch, c.vocab_size - m.tp.rank * ch))  # its rows that are no padding
        logits = self.buffer("logits", (1, ch))
        top, top_at = self.buffer("top", (1, nb)), self.buffer("top_at", (1, nb), ct.i32)
        head = Link(self.k.matmul("lm_head", w.hints), (logits, top, top_at),
                    ((1, w.bn), (1, 1), (1, 1)), (src, w.w),
                    {"V": local_v, "BK": w.bk, "LAT": w.latency})
        return head, logits, top, top_at

    def greedy(self, op: Head) -> Links:
        m, v, nb, hist = self.m, self.c.vocab_size, self.m.head_blocks, (self.m.cache_seq,)
        head, _, top, top_at = self.head_with_maxima(op.src)
        if not op.vocab_split:
            return [head, Link(self.k.sampling("greedy"), ("history", "pos"), (hist, (1,)),
                               ("n_prompt", top, top_at),
                               {"NB": nb, "V": v, "BV": min(pow2(nb), 1024)})]
        n = nb * m.tp.world
        every, every_at = (self.buffer("top_all", (1, n)),
                           self.buffer("top_at_all", (1, n), ct.i32))
        return [head, self.all_gather(every, top), self.all_gather(every_at, top_at),
                Link(self.k.sampling("greedy_sharded"), ("history", "pos"), (hist, (1,)),
                     ("n_prompt", every, every_at),
                     {"NB": n, "NBR": nb, "CH": m.vocab_rows, "V": v,
                      "BV": min(pow2(n), 1024)})]

    def sampled(self, op: Head, s: Sampling) -> Links:
        m, v, hist = self.m, self.c.vocab_size, (self.m.cache_seq,)
        top_k = v if s.top_k <= 0 else min(s.top_k, v)
        scalars: tuple[Any, ...] = (s.seed, 1.0 / s.temperature, top_k, s.top_p)
        consts = {"V": v, "BV": min(pow2(v), 1024)}
        if not op.vocab_split and top_k <= GATHERED_TOP_K:
            # the head's block maxima tell which blocks can hold the kept tokens
            head, logits, top, _ = self.head_with_maxima(op.src)
            nb, bn = m.head_blocks, m.lm_head.bn
            blocks = {"NB": nb, "NBP": pow2(nb), "BN": bn, "C": min(pow2(top_k), pow2(nb))}
            return [head, Link(self.k.sampling("sample_blocks"), ("history", "pos"),
                               (hist, (1,)), ("n_prompt", logits, top, *scalars),
                               consts | blocks)]
        logits = self.buffer("logits", (1, m.vocab_rows))
        row = logits
        out: Links = [self.gemv(logits, m.lm_head, op.src)]
        if op.vocab_split:
            row = self.buffer("logits_all", (1, m.vocab_rows * m.tp.world))
            out.append(self.all_gather(row, logits))
        return [*out, Link(self.k.sampling("sample"), ("history", "pos"), (hist, (1,)),
                           ("n_prompt", row, *scalars), consts)]
