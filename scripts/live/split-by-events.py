#!/usr/bin/env python3
"""Cut the live run's one capture into one pcap per vector (docs/live.md, `make live`).

    split-by-events.py LIVE.pcap EVENTS_DIR OUT_DIR

Each vector's event log (EVENTS_DIR/NAME.events.jsonl, written by `rocecert vectors run --dut
verbs:`) spans the vector's life on the devices: its first line (a key registered, a QP state
set) comes before its first frame, its last (every QP's final state, read after the traffic
settled) after its last. The clock is the guest's CLOCK_REALTIME, as tcpdump's. Vectors run one
after another, so each frame goes to the vector whose span holds it; a frame between two spans
(none is expected) goes to the nearer one. Writes OUT_DIR/NAME.pcap for every log, and prints
one line per vector: NAME, frames, first and last t_ns of its log.
"""
import json
import os
import struct
import sys


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        sys.exit(f"{path}: not a pcap file ({len(data)} bytes)")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        sys.exit(f"{path}: byte 0: not a pcap file (magic {magic.hex()})")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    header, frames, at = data[:24], [], 24
    while at < len(data):
        if at + 16 > len(data):
            sys.exit(f"{path}: frame {len(frames) + 1}: byte {at}: truncated record header")
        sec, frac, incl, _ = struct.unpack(endian + "IIII", data[at:at + 16])
        end = at + 16 + incl
        if end > len(data):
            sys.exit(f"{path}: frame {len(frames) + 1}: byte {at}: truncated frame")
        t_ns = sec * 1_000_000_000 + (frac if nano else frac * 1000)
        frames.append((t_ns, data[at:end]))
        at = end
    return header, frames


def span(path):
    times = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                times.append(int(json.loads(line)["t_ns"]))
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}: line {number}: no t_ns ({e})")
    return (min(times), max(times)) if times else None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pcap, events_dir, out_dir = sys.argv[1:]
    header, frames = read_pcap(pcap)
    spans = []
    for name in sorted(os.listdir(events_dir)):
        if name.endswith(".events.jsonl"):
            s = span(os.path.join(events_dir, name))
            if s:
                spans.append((s[0], s[1], name[: -len(".events.jsonl")]))
    spans.sort()
    os.makedirs(out_dir, exist_ok=True)
    bins = {name: [] for _, _, name in spans}
    for t_ns, record in frames:
        best = None
        for first, last, name in spans:
            distance = 0 if first <= t_ns <= last else min(abs(t_ns - first), abs(t_ns - last))
            if best is None or distance < best[0]:
                best = (distance, name)
        if best:
            bins[best[1]].append(record)
    for first, last, name in spans:
        with open(os.path.join(out_dir, name + ".pcap"), "wb") as f:
            f.write(header)
            for record in bins[name]:
                f.write(record)
        print(f"{name}\t{len(bins[name])}\t{first}\t{last}")


if __name__ == "__main__":
    main()
