"""Wire primitives of Tile IR bytecode: LEB128 varints, zigzag, little-endian lists, padding."""

from __future__ import annotations

from collections.abc import Sequence

PAD_BYTE = 0xCB


class BytecodeFormatError(ValueError):
    """Bytes that do not follow the Tile IR bytecode grammar (raised by the decoder)."""


class Writer:
    """An append-only byte buffer with the encodings the format uses."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def __len__(self) -> int:
        return len(self.buf)

    def u8(self, value: int) -> None:
        self.buf.append(value & 0xFF)

    def raw(self, data: bytes | bytearray) -> None:
        self.buf += data

    def varint(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"varint of a negative number {value}")
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                self.buf.append(byte | 0x80)
            else:
                self.buf.append(byte)
                return

    def svarint(self, value: int) -> None:
        """Zigzag: small magnitudes of either sign stay short."""
        self.varint(~(value << 1) if value < 0 else value << 1)

    def int_le(self, value: int, width: int) -> None:
        self.buf += value.to_bytes(width, "little", signed=value < 0)

    def int_list(self, values: Sequence[int], width: int) -> None:
        self.varint(len(values))
        for v in values:
            self.int_le(v, width)

    def bool_list(self, values: Sequence[bool]) -> None:
        self.varint(len(values))
        for v in values:
            self.buf.append(1 if v else 0)

    def varint_list(self, values: Sequence[int]) -> None:
        self.varint(len(values))
        for v in values:
            self.varint(v)

    def pad_to(self, alignment: int, base: int = 0) -> None:
        """Pad with 0xCB until (base + len) is a multiple of `alignment`."""
        self.buf += bytes([PAD_BYTE]) * (-(base + len(self.buf)) % alignment)


class Reader:
    """A cursor over bytes; every read checks bounds so corrupt input fails cleanly."""

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def at_end(self) -> bool:
        return self.pos >= self.end

    def _need(self, n: int) -> None:
        if self.pos + n > self.end:
            raise BytecodeFormatError(f"unexpected end of data at offset {self.pos}")

    def u8(self) -> int:
        self._need(1)
        b = self.data[self.pos]
        self.pos += 1
        return b

    def raw(self, n: int) -> bytes:
        self._need(n)
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return bytes(out)

    def varint(self) -> int:
        value = 0
        shift = 0
        while True:
            b = self.u8()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 70:
                raise BytecodeFormatError(f"varint too long at offset {self.pos}")

    def svarint(self) -> int:
        z = self.varint()
        return (z >> 1) ^ -(z & 1)

    def int_le(self, width: int, signed: bool = True) -> int:
        return int.from_bytes(self.raw(width), "little", signed=signed)

    def int_list(self, width: int) -> list[int]:
        return [self.int_le(width) for _ in range(self.varint())]

    def bool_list(self) -> list[bool]:
        return [self.u8() != 0 for _ in range(self.varint())]

    def varint_list(self) -> list[int]:
        return [self.varint() for _ in range(self.varint())]

    def skip_pad(self, alignment: int, base: int = 0) -> None:
        n = -(self.pos - base) % alignment
        pad = self.raw(n)
        if any(b != PAD_BYTE for b in pad):
            raise BytecodeFormatError(f"bad padding at offset {self.pos - n}")
