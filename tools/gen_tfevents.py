#!/usr/bin/env python3
"""gen_tfevents.py: TensorBoard event files written from the format's
specification with the standard library only (struct and a CRC-32C of
its own), as TF1's FileWriter, TF2's tf.summary and PyTorch's
SummaryWriter write them: the fixtures of logdown's tensorboard reader
(tests/fixtures/tensorboard/) and the big file of make bench.

    tools/gen_tfevents.py fixtures DIR     the three writers' files
    tools/gen_tfevents.py bench FILE MB    about MB megabytes of scalars

The fields follow tensorflow/tensorboard's tensorboard/compat/proto/
event.proto (Event: 1 wall_time double, 2 step int64, 3 file_version,
4 graph_def, 5 summary, 7 session_log, 10 source_metadata), summary.proto
(Summary: 1 value; Value: 1 tag, 2 simple_value float, 5 histo,
4 image, 8 tensor, 9 metadata; SummaryMetadata: 1 plugin_data, whose
1 is plugin_name, 4 data_class) and tensor.proto (TensorProto: 1 dtype,
2 tensor_shape, 4 tensor_content, 5 float_val packed, 8 string_val).
Every record is TFRecord's: uint64 length, masked CRC-32C of the length,
data, masked CRC-32C of the data, little-endian.  Fields at their
proto3 defaults (a step of 0) are left out, as protobuf writes them.
"""
import os
import struct
import sys

POLY = 0x82F63B78  # CRC-32C, reflected (RFC 3720 B.4)
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    crc = 0xFFFFFFFF
    t = TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283  # the check value


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data):
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", masked(n)) + data + struct.pack("<I", masked(data))


# protobuf

def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wire):
    return varint(num << 3 | wire)


def f_varint(num, v):
    return key(num, 0) + varint(v) if v else b""


def f_double(num, v):
    return key(num, 1) + struct.pack("<d", v)


def f_float(num, v):
    return key(num, 5) + struct.pack("<f", v)


def f_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return key(num, 2) + varint(len(b)) + b


def event(wall, step=0, version=None, summary=None, graph=None, session_start=False,
          writer=None):
    e = f_double(1, wall) + f_varint(2, step)
    if version is not None:
        e += f_bytes(3, version)
    if graph is not None:
        e += f_bytes(4, graph)
    if summary is not None:
        e += f_bytes(5, summary)
    if session_start:
        e += f_bytes(7, f_varint(1, 1))  # SessionLog.status = START
    if writer is not None:
        e += f_bytes(10, f_bytes(1, writer))
    return e


def summary(*values):
    return b"".join(f_bytes(1, v) for v in values)


def simple(tag, v):
    return f_bytes(1, tag) + f_float(2, v)


def histo(tag, lo, hi, num):
    h = f_double(1, lo) + f_double(2, hi) + f_double(3, num)
    return f_bytes(1, tag) + f_bytes(5, h)


def image(tag, w, h, png):
    return f_bytes(1, tag) + f_bytes(4, f_varint(1, h) + f_varint(2, w) + f_varint(3, 3) +
                                     f_bytes(4, png))


def metadata(plugin, data_class=0):
    return f_bytes(1, f_bytes(1, plugin)) + f_varint(4, data_class)


def tensor_scalar(tag, v, plugin_meta, content=True):
    """TF2 writes the number as tensor_content (AsProtoTensorContent);
    PyTorch's new_style as a packed float_val."""
    t = f_varint(1, 1) + f_bytes(2, b"")  # DT_FLOAT, a rank-0 shape
    if content:
        t += f_bytes(4, struct.pack("<f", v))
    else:
        t += f_bytes(5, struct.pack("<f", v))
    out = f_bytes(1, tag) + f_bytes(8, t)
    if plugin_meta:
        out += f_bytes(9, metadata("scalars", 1))
    return out


def tensor_text(tag, text, plugin_meta):
    t = f_varint(1, 7) + f_bytes(2, f_bytes(2, f_varint(1, 1))) + f_bytes(8, text)
    out = f_bytes(1, tag) + f_bytes(8, t)
    if plugin_meta:
        out += f_bytes(9, metadata("text", 2))
    return out


def write(path, events):
    with open(path, "wb") as f:
        for e in events:
            f.write(record(e))


def fixtures(folder):
    os.makedirs(folder, exist_ok=True)
    # TF1 FileWriter: the version, the graph, a session start, then
    # tf.summary.scalar and histogram merged into one Summary a step.
    t0 = 1700000000.0
    ev = [event(t0, version="brain.Event:2"),
          event(t0 + 0.25, graph=b"\x0a\x05\x0a\x01x\x12\x00"),
          event(t0 + 0.5, step=0, session_start=True)]
    loss = [2.5, 1.75, 1.25, 0.875, 0.625, 0.5]
    acc = [0.125, 0.375, 0.5, 0.625, 0.75, 0.8125]
    for i in range(6):
        ev.append(event(t0 + 10 * (i + 1), step=100 * i,
                        summary=summary(simple("loss", loss[i]),
                                        simple("accuracy", acc[i]),
                                        histo("conv1/weights", -0.5, 0.5, 864))))
    write(os.path.join(folder, "events.out.tfevents.1700000000.node01"), ev)

    # TF2 tf.summary (Keras' TensorBoard callback): the first value of
    # a tag carries the plugin's metadata, later ones none.
    t0 = 1712345678.5
    ev = [event(t0, version="brain.Event:2",
                writer="tensorflow.core.util.events_writer")]
    losses = [0.6931471824645996, 0.4054651260375977, 0.28768207, 0.22314355]
    for i in range(4):
        first = i == 0
        ev.append(event(t0 + 3.5 * (i + 1), step=i,
                        summary=summary(tensor_scalar("epoch_loss", losses[i], first))))
        ev.append(event(t0 + 3.5 * (i + 1) + 0.01, step=i,
                        summary=summary(tensor_scalar("epoch_accuracy", 0.5 + i / 8, first))))
        ev.append(event(t0 + 3.5 * (i + 1) + 0.02, step=i,
                        summary=summary(tensor_scalar("epoch_learning_rate", 0.001, first))))
    ev.append(event(t0 + 20, step=3, summary=summary(tensor_text("notes", "done", True))))
    write(os.path.join(folder, "events.out.tfevents.1712345678.gpu-node-3.51234.0.v2"), ev)

    # PyTorch SummaryWriter: one event an add_scalar, simple_value; an
    # add_image between; add_scalar(new_style=True) a float_val tensor.
    t0 = 1721000000.0
    ev = [event(t0, version="brain.Event:2")]
    for epoch in range(1, 6):
        w = t0 + 60 * epoch
        ev.append(event(w, step=epoch, summary=summary(simple("Loss/train", 1.0 / epoch))))
        ev.append(event(w + 1, step=epoch,
                        summary=summary(simple("Loss/test", 1.25 / epoch))))
        ev.append(event(w + 2, step=epoch,
                        summary=summary(simple("Accuracy/test", 50 + 8 * epoch))))
        if epoch == 3:
            ev.append(event(w + 3, step=epoch,
                            summary=summary(image("samples", 2, 2, b"\x89PNG\r\n\x1a\n"))))
        ev.append(event(w + 4, step=epoch,
                        summary=summary(tensor_scalar("lr", 0.5 ** epoch, epoch == 1,
                                                      content=False))))
    write(os.path.join(folder, "events.out.tfevents.1721000000.workstation.4242.0"), ev)


def bench(path, mb):
    """About mb megabytes of scalar events: four tags, PyTorch style (one
    value an event), with wall times and losses that vary."""
    target = int(mb * 1e6)
    tags = ["train/loss", "train/lr", "val/loss", "throughput/samples_per_sec"]
    with open(path, "wb") as f:
        f.write(record(event(1700000000.0, version="brain.Event:2")))
        size, step = 0, 0
        chunk = []
        while size < target:
            step += 1
            for k, tag in enumerate(tags):
                r = record(event(1700000000.0 + step * 0.37 + k * 0.001, step=step,
                                 summary=summary(simple(tag, 2.0 / (1 + step * 1e-4) + k))))
                chunk.append(r)
                size += len(r)
            if len(chunk) > 4096:
                f.write(b"".join(chunk))
                chunk = []
        f.write(b"".join(chunk))
    print(f"{path}: {size} bytes, {step} steps, {step * len(tags) + 1} records")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "bench":
        bench(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(__doc__)
