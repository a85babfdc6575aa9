#!/usr/bin/env python3
"""tfevents_read.py: the peer of logdown's TensorBoard reader in make bench
(row g): a plain-Python reader of the same format, standing in for the
tensorboard package (not installable here).

    tfevents_read.py FILE            checks both CRCs of every record
    tfevents_read.py --no-crc FILE   trusts them

It does what the tensorboard package does without TensorFlow: its
PyRecordReader (tensorboard/compat/tensorflow_stub/pywrap_tensorflow.py)
reads each record with struct and checks the masked CRC-32C of the length
and of the data in pure Python, then the Event is decoded (here by hand:
python3-protobuf is not installed, and its pure-Python decoder would be
slower) and every scalar kept, by tag, as (step, wall_time, value): what
EventAccumulator's scalars hold.  It prints each tag's row count, as
`logdown parse --list-columns` prints each column.
"""
import struct
import sys

TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def masked_crc32c(data):
    crc = 0xFFFFFFFF
    t = TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, pos
        shift += 7


def fields(buf):
    """(number, wire type, value) of each field of a message."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, pos = varint(buf, pos)
        elif wire == 1:
            v = buf[pos:pos + 8]
            pos += 8
        elif wire == 2:
            n, pos = varint(buf, pos)
            v = buf[pos:pos + n]
            pos += n
        elif wire == 5:
            v = buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, v


def tensor_scalar(buf):
    dtype, vals = 0, []
    for num, wire, v in fields(buf):
        if num == 1:
            dtype = v
        elif num == 4 and dtype == 1 and len(v) == 4:
            vals.append(struct.unpack("<f", v)[0])
        elif num == 5 and wire == 2:
            vals.extend(struct.unpack("<%df" % (len(v) // 4), v))
        elif num == 5 and wire == 5:
            vals.append(struct.unpack("<f", v)[0])
    return vals[0] if len(vals) == 1 else None


def main():
    args = sys.argv[1:]
    check = True
    if args and args[0] == "--no-crc":
        check = False
        args = args[1:]
    scalars = {}
    plugins = {}
    with open(args[0], "rb") as f:
        read = f.read
        while True:
            header = read(8)
            if len(header) < 8:
                break
            (length,) = struct.unpack("<Q", header)
            (crc,) = struct.unpack("<I", read(4))
            if check and masked_crc32c(header) != crc:
                raise ValueError("failed header crc32 check")
            data = read(length)
            (crc,) = struct.unpack("<I", read(4))
            if check and masked_crc32c(data) != crc:
                raise ValueError("failed event crc32 check")
            wall, step, summary = 0.0, 0, None
            for num, wire, v in fields(data):
                if num == 1:
                    (wall,) = struct.unpack("<d", v)
                elif num == 2:
                    step = v
                elif num == 5:
                    summary = v
            if summary is None:
                continue
            for num, wire, value in fields(summary):
                if num != 1:
                    continue
                tag, simple, tensor = "", None, None
                for n, w, v in fields(value):
                    if n == 1:
                        tag = v.decode("utf-8", "replace")
                    elif n == 2:
                        (simple,) = struct.unpack("<f", v)
                    elif n == 8:
                        tensor = v
                    elif n == 9:
                        for a, _, pd in fields(v):
                            if a == 1:
                                for b, _, name in fields(pd):
                                    if b == 1:
                                        plugins[tag] = name
                if simple is None and tensor is not None and plugins.get(tag) == b"scalars":
                    simple = tensor_scalar(tensor)
                if simple is not None:
                    scalars.setdefault(tag, []).append((step, wall, simple))
    for tag, rows in scalars.items():
        print("%s\t%d rows" % (tag, len(rows)))


if __name__ == "__main__":
    main()
