"""Just enough of the ONNX protobuf format to write a model for ONNX Runtime, without the ``onnx`` package.

``onnx`` would do this with its helper API, but importing it costs seconds (its ``ml_dtypes`` extension:
~1 s idle, 7 s on a busy 2-core machine), paid by every process that embeds its first text. The messages
below are the subset of onnx.proto (proto2) a graph of plain tensors needs: ModelProto, GraphProto,
NodeProto, AttributeProto, TensorProto (raw_data), ValueInfoProto with tensor types. Field numbers are
onnx.proto's; repeated numbers are written unpacked, which every protobuf reader accepts.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

# TensorProto.DataType
FLOAT, UINT8, INT8, INT32, INT64 = 1, 2, 3, 6, 7
_DATA_TYPES = {np.dtype(np.float32): FLOAT, np.dtype(np.uint8): UINT8, np.dtype(np.int8): INT8}
_DATA_TYPES |= {np.dtype(np.int32): INT32, np.dtype(np.int64): INT64}
# AttributeProto.AttributeType
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 as protobuf writes it: ten bytes, two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _key(number, 0) + _varint(value)


def _bytes(number: int, value: bytes) -> bytes:
    return _key(number, 2) + _varint(len(value)) + value


def _text(number: int, value: str) -> bytes:
    return _bytes(number, value.encode("utf-8"))


def tensor(name: str, value: np.ndarray) -> bytes:
    """A TensorProto holding ``value`` (float32, int8, uint8, int32 or int64) as little-endian raw data."""
    array = np.ascontiguousarray(value)
    data_type = _DATA_TYPES.get(array.dtype)
    if data_type is None:
        raise TypeError(f"no ONNX tensor type written for {array.dtype}")
    dims = b"".join(_int(1, size) for size in array.shape)
    return dims + _int(2, data_type) + _text(8, name) + _bytes(9, array.astype(array.dtype.newbyteorder("<")).tobytes())


def attribute(name: str, value: float | int | Sequence[int]) -> bytes:
    """An AttributeProto: a float, an int, or a list of ints."""
    if isinstance(value, float):
        return _text(1, name) + _key(2, 5) + struct.pack("<f", value) + _int(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return _text(1, name) + _int(3, value) + _int(20, _ATTR_INT)
    return _text(1, name) + b"".join(_int(8, v) for v in value) + _int(20, _ATTR_INTS)


def value_info(name: str, elem_type: int, shape: Sequence[int | str]) -> bytes:
    """A ValueInfoProto for a tensor; a str in ``shape`` is a named (dynamic) dimension."""
    dims = b"".join(_bytes(1, _text(2, d) if isinstance(d, str) else _int(1, d)) for d in shape)
    tensor_type = _int(1, elem_type) + _bytes(2, dims)
    return _text(1, name) + _bytes(2, _bytes(1, tensor_type))


@dataclass
class Node:
    op_type: str
    inputs: list[str]
    outputs: list[str]
    domain: str = ""
    attributes: dict[str, float | int | Sequence[int]] = field(default_factory=dict)

    def encode(self) -> bytes:
        out = b"".join(_text(1, name) for name in self.inputs) + b"".join(_text(2, name) for name in self.outputs)
        out += _text(4, self.op_type)
        out += b"".join(_bytes(5, attribute(name, value)) for name, value in self.attributes.items())
        return out + (_text(7, self.domain) if self.domain else b"")


def model(
    *,
    name: str,
    nodes: Sequence[Node],
    initializers: Sequence[bytes],
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    opsets: dict[str, int],
    ir_version: int = 8,
) -> bytes:
    """A serialised ModelProto: one graph, the given operator sets (domain "" is the standard one)."""
    graph = b"".join(_bytes(1, node.encode()) for node in nodes) + _text(2, name)
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += b"".join(_bytes(11, v) for v in inputs) + b"".join(_bytes(12, v) for v in outputs)
    out = _int(1, ir_version) + _text(2, "kioko")
    out += _bytes(7, graph)
    return out + b"".join(_bytes(8, _text(1, domain) + _int(2, version)) for domain, version in opsets.items())
