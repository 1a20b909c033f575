"""A reader for the small subset of YAML that docker-compose.yml is written in.

PyYAML is not a dependency and no Docker engine runs where the tests do, so the
compose test reads the file with this. It understands block mappings, block
sequences of scalars and of block mappings (``- key: value`` with the mapping's other
keys under its first), flow sequences of scalars, quoted and plain scalars and
comments, and raises :class:`YamlSubsetError` on anything else (anchors, block
scalars, flow mappings, tabs...) instead of guessing:
a compose edit outside the subset fails the test loudly, never silently.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

Value = str | int | None | list["Value"] | dict[str, "Value"]

_KEY = re.compile(r"^([A-Za-z0-9_.-]+):(?:\s+(.*))?$")
_INT = re.compile(r"^-?[0-9]+$")
_UNSUPPORTED_START = tuple("{&*!|>%@`")


class YamlSubsetError(ValueError):
    """The text uses YAML this reader does not understand, or is not valid YAML."""


class _Line(NamedTuple):
    number: int
    indent: int
    text: str


def _strip_comment(line: str) -> str:
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _lines(text: str) -> list[_Line]:
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlSubsetError(f"line {number}: tab in indentation")
        stripped = _strip_comment(raw)
        if stripped.strip():
            body = stripped.lstrip(" ")
            lines.append(_Line(number, len(stripped) - len(body), body))
    return lines


def _split_flow(inner: str, number: int) -> list[str]:
    items, current, quote = [], "", ""
    for char in inner:
        if quote:
            current += char
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
            current += char
        elif char == ",":
            items.append(current.strip())
            current = ""
        elif char in "[]{}":
            raise YamlSubsetError(f"line {number}: nested flow collections are not supported")
        else:
            current += char
    if quote:
        raise YamlSubsetError(f"line {number}: unterminated quote")
    if current.strip():
        items.append(current.strip())
    elif items:
        raise YamlSubsetError(f"line {number}: empty item in flow sequence")
    return items


def _scalar(text: str, number: int) -> Value:
    if text.startswith("["):
        if not text.endswith("]"):
            raise YamlSubsetError(f"line {number}: flow sequence must end on its line")
        return [_scalar(item, number) for item in _split_flow(text[1:-1], number)]
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlSubsetError(f"line {number}: bad double-quoted string") from exc
        if not isinstance(value, str):
            raise YamlSubsetError(f"line {number}: text after a quoted string")
        return value
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise YamlSubsetError(f"line {number}: bad single-quoted string")
        return text[1:-1].replace("''", "'")
    if text.startswith(_UNSUPPORTED_START) or text.startswith("- ") or ": " in text:
        raise YamlSubsetError(f"line {number}: unsupported YAML: {text!r}")
    if text in ("~", "null"):
        return None
    return int(text) if _INT.match(text) else text


def _block(lines: list[_Line], i: int, indent: int) -> tuple[Value, int]:
    if lines[i].text == "-" or lines[i].text.startswith("- "):
        sequence: list[Value] = []
        while i < len(lines) and lines[i].indent == indent:
            line = lines[i]
            if not line.text.startswith("- "):
                raise YamlSubsetError(f"line {line.number}: expected '- item'")
            item = line.text[2:].lstrip(" ")
            if _KEY.match(item):  # a mapping: its first key on the dash's line
                lines[i] = _Line(line.number, len(line.text) - len(item) + indent, item)
                value, i = _block(lines, i, lines[i].indent)
                sequence.append(value)
                continue
            sequence.append(_scalar(item.strip(), line.number))
            i += 1
        return sequence, i
    mapping: dict[str, Value] = {}
    while i < len(lines) and lines[i].indent == indent:
        line = lines[i]
        match = _KEY.match(line.text)
        if match is None:
            raise YamlSubsetError(f"line {line.number}: expected 'key: value'")
        key, rest = match.group(1), match.group(2)
        if key in mapping:
            raise YamlSubsetError(f"line {line.number}: duplicate key {key!r}")
        i += 1
        if rest:
            mapping[key] = _scalar(rest.strip(), line.number)
        elif i < len(lines) and (
            lines[i].indent > indent
            or (lines[i].indent == indent and lines[i].text.startswith("- "))
        ):
            mapping[key], i = _block(lines, i, lines[i].indent)
        else:
            mapping[key] = None
    return mapping, i


def load(text: str) -> Value:
    """The document as plain Python values (str, int, None, list, dict)."""
    lines = _lines(text)
    if not lines:
        return None
    value, i = _block(lines, 0, lines[0].indent)
    if i < len(lines):
        raise YamlSubsetError(f"line {lines[i].number}: unexpected indentation")
    return value
