"""IP-address hosts as the WHATWG URL standard (and so Chrome) reads them: `0x7f.1`, `2130706433` and
`0177.0.0.1` are all 127.0.0.1, and an IPv6 address is spelled in one canonical way. Each function returns
None where the standard fails the host, so the caller refuses the URL in its own words."""

from __future__ import annotations

import string

_HEX = frozenset(string.hexdigits)
_DIGITS = frozenset(string.digits)
_OCTAL = frozenset(string.octdigits)


def _ipv4_number(part: str) -> int | None:
    """An IPv4 part: `0x…` hexadecimal, `0…` octal, else decimal; None when it is none of these."""
    if part == "":
        return None
    digits, radix, allowed = part, 10, _DIGITS
    if len(part) >= 2 and part[:2] in ("0x", "0X"):
        digits, radix, allowed = part[2:], 16, _HEX
    elif len(part) >= 2 and part[0] == "0":
        digits, radix, allowed = part[1:], 8, _OCTAL
    if digits == "":
        return 0
    if not set(digits) <= allowed:
        return None
    return int(digits, radix)


def ends_in_a_number(host: str) -> bool:
    """Whether the standard reads `host` as an IPv4 address (and fails it if it is not a valid one)."""
    parts = host.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last != "" and set(last) <= _DIGITS:
        return True
    return last[:2] in ("0x", "0X") and _ipv4_number(last) is not None


def ipv4(host: str) -> str | None:
    """The dotted-decimal spelling of an IPv4 host in any of the standard's forms; None when invalid."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        return None
    numbers = [_ipv4_number(part) for part in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(values[:-1]))
    return ".".join(str((address >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _ipv6_pieces(text: str) -> list[int] | None:
    """The standard's IPv6 parser: eight 16-bit pieces, or None where it fails."""
    address = [0] * 8
    piece, compress, at, end = 0, -1, 0, len(text)

    def char(i: int) -> str:
        return text[i] if i < end else ""

    if char(at) == ":":
        if char(at + 1) != ":":
            return None
        at, piece = at + 2, 1
        compress = piece
    while at < end:
        if piece == 8:
            return None
        if char(at) == ":":
            if compress != -1:
                return None
            at, piece = at + 1, piece + 1
            compress = piece
            continue
        value = length = 0
        while length < 4 and char(at) in _HEX:
            value, at, length = value * 16 + int(char(at), 16), at + 1, length + 1
        if char(at) == ".":
            if length == 0 or piece > 6:
                return None
            return _with_ipv4(text, at - length, address, piece, compress)
        if char(at) == ":":
            at += 1
            if at == end:
                return None
        elif at < end:
            return None
        address[piece] = value
        piece += 1
    return _compressed(address, piece, compress)


def _with_ipv4(text: str, at: int, address: list[int], piece: int, compress: int) -> list[int] | None:
    """The tail of an IPv6 address written as dotted IPv4 (`::ffff:1.2.3.4`): four decimal parts, no
    leading zeros."""
    parts = text[at:].split(".")
    if len(parts) != 4:
        return None
    for seen, part in enumerate(parts):
        if part == "" or not set(part) <= _DIGITS or (len(part) > 1 and part[0] == "0") or int(part) > 255:
            return None
        address[piece] = address[piece] * 0x100 + int(part)
        if seen in (1, 3):
            piece += 1
    return _compressed(address, piece, compress)


def _compressed(address: list[int], piece: int, compress: int) -> list[int] | None:
    if compress == -1:
        return address if piece == 8 else None
    swaps, piece = piece - compress, 7
    while piece != 0 and swaps > 0:
        other = compress + swaps - 1
        address[piece], address[other] = address[other], address[piece]
        piece, swaps = piece - 1, swaps - 1
    return address


def ipv6(text: str) -> str | None:
    """The bracketed canonical spelling of an IPv6 host (`[::1]`), as URL.origin shows it; None if invalid."""
    pieces = _ipv6_pieces(text)
    if pieces is None:
        return None
    # The first longest run of two or more zero pieces is written `::`.
    best, best_length, run_start = -1, 1, -1
    for i, value in enumerate([*pieces, 1]):
        if value == 0 and run_start == -1:
            run_start = i
        elif value != 0 and run_start != -1:
            if i - run_start > best_length:
                best, best_length = run_start, i - run_start
            run_start = -1
    if best == -1:
        return "[" + ":".join(f"{p:x}" for p in pieces) + "]"
    head = ":".join(f"{p:x}" for p in pieces[:best])
    tail = ":".join(f"{p:x}" for p in pieces[best + best_length :])
    return f"[{head}::{tail}]"
