#!/usr/bin/env python3
"""Run one rocecert test vector on a device-under-test plugin, with nothing but the plugin.

    python3 examples/dut/run_vector.py PLUGIN.so VECTOR.json

An example of driving the C ABI of conformance/include/rocecert/dut.h from Python, standard
library only. The plugin plays every adapter of the vector's scenario: one plugin device per
adapter, joined by the scenario's link (a frame one device emits reaches the other after the
serialization time at `gbps` plus `latency_ns`). The steps run in order through the plugin's
functions, and each `expect` step is checked (docs/scenario.md): the frames sent (decoded here
from their bytes), completions, memory, QP states and asynchronous events.

Prints PASS, or FAIL with each difference (JSON path: field: expected ..., got ...). Exit code
0 PASS, 1 FAIL, 2 unusable input: a bad file, a step or field this example does not support, or
a plugin function it needs and the plugin does not export (one line naming the file and path).

Supported: alloc_pd, reg_mr, dereg_mr, alloc_mw, create_cq, create_qp, modify_qp, post_recv, post_send,
inject, run and expect, with every field the vectors under vectors/ use; link fault rules that drop
or mark ECN CE (not the seeded probabilities). Not supported: SRQs, inline data.
"""
import argparse
import ctypes
import json
import os
import struct
import sys
import zlib
from collections import defaultdict
from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

NEVER = 2**64 - 1                 # ROCECERT_DUT_NEVER
IDLE_LIMIT_NS = 10_000_000_000    # a bare "run" stops after 10 s of simulated time
EINVAL, ENOMEM, EBUSY, EPERM, EOPNOTSUPP = 22, 12, 16, 1, 95   # Linux errno values

# --- the ABI's structures, field for field as dut.h declares them ---------------------------------
EMIT_FN = ctypes.CFUNCTYPE(None, c_void_p, POINTER(c_uint8), c_size_t)

def u32_fields(*names):
    return [(n, c_uint32) for n in names]

class Config(ctypes.Structure):
    _fields_ = [("abi_version", c_uint32), ("name", c_char_p), ("mac", c_uint8 * 6), ("gid", c_uint8 * 16),
                ("port_mtu", c_uint32), ("seed", c_uint64), ("adapter_json", c_char_p), ("args", c_char_p),
                ("emit", EMIT_FN), ("host", c_void_p), ("wire_only", c_uint32), ("reserved", c_uint32)]

class Sge(ctypes.Structure):
    _fields_ = [("addr", c_uint64), ("length", c_uint32), ("lkey", c_uint32)]

class Av(ctypes.Structure):
    _fields_ = [("dgid", c_uint8 * 16), ("dmac", c_uint8 * 6), ("sgid_index", c_uint8), ("hop_limit", c_uint8),
                ("traffic_class", c_uint8), ("reserved", c_uint8 * 3), ("flow_label", c_uint32),
                ("udp_sport", c_uint16), ("reserved2", c_uint16)]

class QpInit(ctypes.Structure):
    _fields_ = u32_fields("qp_type", "pd", "send_cq", "recv_cq", "srq", "has_srq", "max_send_wr", "max_recv_wr",
                          "max_send_sge", "max_recv_sge", "max_inline_data", "sq_sig_all")

class QpAttr(ctypes.Structure):
    _fields_ = (u32_fields("qp_state", "cur_qp_state", "path_mtu", "qkey", "rq_psn", "sq_psn", "dest_qp_num",
                           "qp_access_flags", "pkey_index", "port_num") + [("ah_attr", Av)]
                + u32_fields("timeout", "retry_cnt", "rnr_retry", "min_rnr_timer", "max_rd_atomic",
                             "max_dest_rd_atomic", "path_mig_state", "en_sqd_async_notify", "rate_limit"))

class SendWr(ctypes.Structure):
    _fields_ = ([("wr_id", c_uint64)] + u32_fields("opcode", "send_flags") + [("sg_list", POINTER(Sge))]
                + u32_fields("num_sge", "inline_len") + [("inline_data", POINTER(c_uint8))]
                + u32_fields("imm_data", "invalidate_rkey") + [("remote_addr", c_uint64)]
                + u32_fields("rkey", "remote_qpn", "remote_qkey", "has_ah") + [("ah", Av)]
                + [("compare_add", c_uint64), ("swap", c_uint64)] + u32_fields("bind_mw", "bind_mr_lkey")
                + [("bind_addr", c_uint64), ("bind_length", c_uint64), ("bind_access", c_uint32),
                   ("flush_type", c_uint8), ("flush_level", c_uint8), ("reserved", c_uint16)])

class Wc(ctypes.Structure):
    _fields_ = [("wr_id", c_uint64)] + u32_fields("status", "opcode", "vendor_err", "byte_len", "imm_data",
                                                  "qp_num", "src_qp", "wc_flags", "pkey_index", "reserved")

class AsyncEvent(ctypes.Structure):
    _fields_ = u32_fields("type", "element")

P, U32P = c_void_p, POINTER(c_uint32)
SIGNATURES = {  # rocecert_dut_NAME: (restype, argtypes); the first six are required
    "abi_version": (c_uint32, []), "create": (c_void_p, [POINTER(Config), c_char_p, c_size_t]),
    "destroy": (None, [P]), "receive": (None, [P, c_char_p, c_size_t]), "advance": (None, [P, c_uint64]),
    "next_event_ns": (c_uint64, [P]), "capabilities": (c_char_p, []),
    "mem_write": (c_int, [P, c_uint64, c_char_p, c_size_t]),
    "mem_read": (c_int, [P, c_uint64, c_void_p, c_size_t]),
    "alloc_pd": (c_int, [P, U32P]),
    "reg_mr": (c_int, [P, c_uint32, c_uint64, c_uint64, c_uint64, c_uint32, U32P, U32P]),
    "dereg_mr": (c_int, [P, c_uint32]),
    "alloc_mw": (c_int, [P, c_uint32, c_uint32, U32P, U32P]), "mw_rkey": (c_int, [P, c_uint32, U32P]),
    "create_cq": (c_int, [P, c_uint32, U32P]), "create_qp": (c_int, [P, POINTER(QpInit), U32P]),
    "modify_qp": (c_int, [P, c_uint32, POINTER(QpAttr), c_uint32]), "query_qp_state": (c_int, [P, c_uint32, U32P]),
    "post_send": (c_int, [P, c_uint32, POINTER(SendWr)]),
    "post_recv": (c_int, [P, c_uint32, c_uint64, POINTER(Sge), c_uint32]),
    "poll_cq": (c_int, [P, c_uint32, POINTER(Wc), c_int]), "poll_async_event": (c_int, [P, POINTER(AsyncEvent)]),
}
REQUIRED_FUNCTIONS = list(SIGNATURES)[:6]

# --- the names of docs/scenario.md and their libibverbs values -------------------------------------
def bits(*names_and_bits):
    return {n: 1 << b for n, b in names_and_bits}

ACCESS = bits(("LOCAL_WRITE", 0), ("REMOTE_WRITE", 1), ("REMOTE_READ", 2), ("REMOTE_ATOMIC", 3), ("MW_BIND", 4),
              ("ZERO_BASED", 5), ("ON_DEMAND", 6), ("HUGETLB", 7), ("FLUSH_GLOBAL", 8), ("FLUSH_PERSISTENT", 9),
              ("RELAXED_ORDERING", 20))                                  # refmodel mem/keys.h
ATTR_BITS = bits(("STATE", 0), ("CUR_STATE", 1), ("EN_SQD_ASYNC_NOTIFY", 2), ("ACCESS_FLAGS", 3),
                 ("PKEY_INDEX", 4), ("PORT", 5), ("QKEY", 6), ("AV", 7), ("PATH_MTU", 8), ("TIMEOUT", 9),
                 ("RETRY_CNT", 10), ("RNR_RETRY", 11), ("RQ_PSN", 12), ("MAX_QP_RD_ATOMIC", 13), ("ALT_PATH", 14),
                 ("MIN_RNR_TIMER", 15), ("SQ_PSN", 16), ("MAX_DEST_RD_ATOMIC", 17), ("PATH_MIG_STATE", 18),
                 ("CAP", 19), ("DEST_QPN", 20), ("RATE_LIMIT", 25))     # refmodel qp/types.h AttrBit
QP_TYPES = {"RC": 2, "UC": 3, "UD": 4}
QP_STATES = ["RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"]
MTU_CODES = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}                  # enum ibv_mtu
WR_OPCODES = {"RDMA_WRITE": 0, "RDMA_WRITE_WITH_IMM": 1, "SEND": 2, "SEND_WITH_IMM": 3, "RDMA_READ": 4,
              "ATOMIC_CMP_AND_SWP": 5, "ATOMIC_FETCH_AND_ADD": 6, "LOCAL_INV": 7, "BIND_MW": 8,
              "SEND_WITH_INV": 9, "TSO": 10, "DRIVER1": 11, "FLUSH": 14, "ATOMIC_WRITE": 15}
SEND_FLAGS = {"FENCE": 1, "SIGNALED": 2, "SOLICITED": 4}                 # INLINE is not supported here
WC_STATUSES = ["SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
               "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
               "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
               "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR",
               "TM_RNDV_INCOMPLETE"]
WC_OPCODES = {"SEND": 0, "RDMA_WRITE": 1, "RDMA_READ": 2, "COMP_SWAP": 3, "FETCH_ADD": 4, "BIND_MW": 5,
              "LOCAL_INV": 6, "TSO": 7, "FLUSH": 8, "ATOMIC_WRITE": 9, "RECV": 128, "RECV_RDMA_WITH_IMM": 129}
WC_FLAGS = {"GRH": 1, "WITH_IMM": 2, "IP_CSUM_OK": 4, "WITH_INV": 8}
ASYNC_EVENTS = ["CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED", "PATH_MIG",
                "PATH_MIG_ERR", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE",
                "SM_CHANGE", "SRQ_ERR", "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER",
                "GID_CHANGE", "WQ_FATAL"]
# A plugin answers errno values only, so expect_error names are compared at errno level: all EINVAL
# but these (refmodel post_errors.def, qp/transitions.cpp errno_value, mem/mem_table.h).
ERROR_ERRNO = {"QUEUE_FULL": ENOMEM, "QPN_EXHAUSTED": ENOMEM, "INDEX_EXHAUSTED": ENOMEM, "PD_IN_USE": EBUSY,
               "MR_PD_MISMATCH": EPERM, "MW_ACCESS_UNSUPPORTED": EOPNOTSUPP}

# The BTH opcodes (refmodel/include/rocecert/wire/opcodes.def) with their extended headers in
# wire order: E RDETH, D DETH, X XRCETH, F FETH, R RETH, T AtomicETH, A AETH, K AtomicAckETH,
# I ImmDt, V IETH, C the CNP's 16 reserved bytes.
HEADER_LEN = {"E": 4, "D": 8, "X": 4, "F": 4, "R": 16, "T": 28, "A": 4, "K": 8, "I": 4, "V": 4, "C": 16}
HEADER_NAME = {"E": "RDETH", "D": "DETH", "X": "XRCETH", "F": "FETH", "R": "RETH", "T": "AtomicETH",
               "A": "AETH", "K": "AtomicAckETH", "I": "ImmDt", "V": "IETH", "C": "CNP reserved"}
_RC = ["SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE:I", "SEND_ONLY",
       "SEND_ONLY_WITH_IMMEDIATE:I", "RDMA_WRITE_FIRST:R", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST",
       "RDMA_WRITE_LAST_WITH_IMMEDIATE:I", "RDMA_WRITE_ONLY:R", "RDMA_WRITE_ONLY_WITH_IMMEDIATE:RI",
       "RDMA_READ_REQUEST:R", "RDMA_READ_RESPONSE_FIRST:A", "RDMA_READ_RESPONSE_MIDDLE",
       "RDMA_READ_RESPONSE_LAST:A", "RDMA_READ_RESPONSE_ONLY:A", "ACKNOWLEDGE:A", "ATOMIC_ACKNOWLEDGE:AK",
       "COMPARE_SWAP:T", "FETCH_ADD:T", None, "SEND_LAST_WITH_INVALIDATE:V",
       "SEND_ONLY_WITH_INVALIDATE:V"]                                            # 0x00 .. 0x17
OPCODES = {0x1C: ("RC_FLUSH", "FR"), 0x1D: ("RC_ATOMIC_WRITE", "R"), 0x64: ("UD_SEND_ONLY", "D"),
           0x65: ("UD_SEND_ONLY_WITH_IMMEDIATE", "DI"), 0x81: ("CNP_CNP", "C")}
for _value, _spec in enumerate(_RC):
    if _spec:
        _name, _, _headers = _spec.partition(":")
        OPCODES[_value] = ("RC_" + _name, _headers)
        if _value < 0x0C:  # UC has RC's SENDs and RDMA WRITEs, 0x20 higher
            OPCODES[0x20 + _value] = ("UC_" + _name, _headers)
# RD and XRC, which an inject step may name: RC's opcodes 0x40 and 0xA0 higher. RD requests add
# an RDETH and a DETH, RD responses an RDETH; XRC requests add an XRCETH.
for _value, (_name, _headers) in [(v, spec) for v, spec in OPCODES.items() if v < 0x20]:
    _base, _response = _name[3:], "RESPONSE" in _name or "ACKNOWLEDGE" in _name
    if _value <= 0x14 or _value >= 0x1C:  # RD has no SEND WITH INVALIDATE
        OPCODES[0x40 + _value] = ("RD_" + _base, ("E" if _response else "ED") + _headers)
    if _value <= 0x17:                      # nor XRC FLUSH and ATOMIC WRITE
        OPCODES[0xA0 + _value] = ("XRC_" + _base, ("" if _response else "X") + _headers)
OPCODES[0x55] = ("RD_RESYNC", "ED")
OPCODE_BY_NAME = {name: value for value, (name, _) in OPCODES.items()}
FAULT_CLASSES = ["any", "request", "response", "send", "write", "read_request", "read_response", "atomic",
                 "atomic_ack", "acknowledge", "ack", "nak", "cnp"]
NAKS = ["NAK_PSN_SEQUENCE_ERROR", "NAK_INVALID_REQUEST", "NAK_REMOTE_ACCESS_ERROR", "NAK_REMOTE_OPERATIONAL_ERROR",
        "NAK_INVALID_RD_REQUEST"]
# The opcodes without a payload (opcodes.def payload NONE), by the ends of their names.
NO_PAYLOAD = ("READ_REQUEST", "ACKNOWLEDGE", "COMPARE_SWAP", "FETCH_ADD", "FLUSH", "RESYNC", "CNP")

# An inject step's frame (conformance/scenario/keys.cpp kInjectFrameAllowed), and the keys that
# belong to one extended header: given for an opcode without it, they are an error.
INJECT_FRAME_KEYS = {"opcode", "psn", "ackreq", "se", "migreq", "pkey", "tver", "rkey", "va", "va_offset", "dmalen",
                     "swap_add", "compare", "syndrome", "msn", "orig", "qkey", "src_qp", "imm_data",
                     "invalidate_rkey", "payload", "src_ip", "dst_ip", "ecn", "sport", "icrc", "truncate"}
INJECT_HEADER_KEYS = [("R", ["dmalen"]), ("T", ["swap_add", "compare"]), ("A", ["syndrome", "msn"]), ("K", ["orig"]),
                      ("D", ["qkey", "src_qp"]), ("I", ["imm_data"]), ("V", ["invalidate_rkey"])]
PIECE_KEYS = {"offset", "hex", "u64", "fill", "counter", "length"}
MAX_INJECT_PAYLOAD = 9000         # conformance/scenario/loader_internal.h kMaxInjectPayload
U32, U64 = 2**32 - 1, 2**64 - 1


class Unusable(Exception):
    """The input cannot be run: (JSON path, why). Exit code 2."""


class Skip(Exception):
    """The step uses an object whose creation failed: a failure, and the step is skipped."""


# --- reading scenario values ----------------------------------------------------------------------
REQUIRED = object()

def looks_numeric(v):
    return isinstance(v, str) and (len(v) > 2 and v[:2] in ("0x", "0X") or v.isdigit())

def is_name(v):
    """Objects are named; a literal number (or numeric string) is accepted wherever a name is."""
    return isinstance(v, str) and not looks_numeric(v)

def num(v, path):
    """A JSON integer, or a string holding a decimal or 0x hexadecimal integer."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return v
    try:
        if looks_numeric(v):
            return int(v, 16 if v[:2] in ("0x", "0X") else 10)
    except ValueError:
        pass
    raise Unusable(path, f"expected a non-negative integer, got {json.dumps(v)}")

def bounded(maximum):
    """A reader for get(): num() no larger than `maximum` (the field's width)."""
    def read(v, path):
        n = num(v, path)
        if n > maximum:  # worded as the C++ loader words it
            bounds = f"0..{maximum}" if maximum <= 0xFFFF else f"0x0..{maximum:#x}"
            raise Unusable(path, f"{json.dumps(v)} is out of range ({bounds})")
        return n
    return read

def boolean(v, path):
    if not isinstance(v, bool):
        raise Unusable(path, f"expected true or false, got {json.dumps(v)}")
    return v

def opcode_number(v, path):
    """A BTH opcode: a name `rocecert decode` prints, or a number 0..0xff (reserved ones too)."""
    if not is_name(v):
        return bounded(0xFF)(v, path)
    if v not in OPCODE_BY_NAME:
        raise Unusable(path, f"unknown opcode {json.dumps(v)} (the names `rocecert decode` prints, e.g. "
                             f"RC_SEND_MIDDLE, or a number 0..0xff)")
    return OPCODE_BY_NAME[v]

def syndrome_number(v, path):
    """An AETH syndrome: a number 0..0xff, or a name, which is the first syndrome of that name (ACK
    with no credit, RNR NAK with timer code 0, a NAK code)."""
    if not is_name(v):
        return bounded(0xFF)(v, path)
    first = next((syndrome for syndrome in range(0x100) if aeth_name(syndrome) == v), None)
    if first is None:
        raise Unusable(path, f"unknown AETH {json.dumps(v)} (ACK, RNR_NAK, {', '.join(NAKS)}, or a number 0..0xff)")
    return first

def enum(v, names, path):
    table = names if isinstance(names, dict) else {n: i for i, n in enumerate(names)}
    if not isinstance(v, str) or v not in table:
        some = ", ".join(list(table)[:8]) + (", ..." if len(table) > 8 else "")
        raise Unusable(path, f"unknown name {json.dumps(v)} (expected one of {some})")
    return table[v]

def flags(v, table, path):
    """An array of flag names, or a raw integer."""
    if not isinstance(v, list):
        return num(v, path)
    out = 0
    for i, name in enumerate(v):
        out |= enum(name, table, f"{path}[{i}]")
    return out

def checked_name(names):
    """A reader for get(): the name itself, once found in the table."""
    def read(v, path):
        enum(v, names, path)
        return v
    return read

def raw(v, path):
    return v

def mtu_code(v, path):
    """A path MTU in bytes as enum ibv_mtu: 256 -> 1 ... 4096 -> 5."""
    if num(v, path) not in MTU_CODES:
        raise Unusable(path, f"{v} is not an MTU (256, 512, 1024, 2048 or 4096)")
    return MTU_CODES[num(v, path)]

def get(obj, key, path, convert=num, default=REQUIRED):
    """convert(obj[key], its JSON path); a missing key gives the default, or is an error."""
    if key in obj:
        return convert(obj[key], f"{path}.{key}")
    if default is REQUIRED:
        raise Unusable(path, f"missing required key \"{key}\"")
    return default

def check_keys(obj, path, allowed):
    if not isinstance(obj, dict):
        raise Unusable(path, f"expected an object, got {json.dumps(obj)[:40]}")
    for k in obj:
        if k not in allowed and k != "description":
            raise Unusable(f"{path}.{k}", "not supported by this example")

def mac_bytes(text, path):
    parts = text.split(":") if isinstance(text, str) else []
    try:
        if len(parts) == 6 and all(len(p) == 2 for p in parts):
            return bytes(int(p, 16) for p in parts)
    except ValueError:
        pass
    raise Unusable(path, f"{json.dumps(text)} is not a MAC address")

def gid_bytes(text, path):
    """An IPv4 address as the IPv4-mapped GID ::ffff:a.b.c.d; an IPv6 address as itself."""
    text = text if isinstance(text, str) else ""
    parts = text.split(".")
    if len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts):
        return bytes(10) + b"\xff\xff" + bytes(int(p) for p in parts)
    head, double_colon, tail = text.partition("::")  # "::" stands for as many zero groups as missing
    left, right = [g for g in head.split(":") if g], [g for g in tail.split(":") if g]
    groups = left + ["0"] * (8 - len(left) - len(right)) + right if double_colon else text.split(":")
    try:
        if len(groups) == 8 and all(len(g) <= 4 for g in groups):
            return b"".join(int(g, 16).to_bytes(2, "big") for g in groups)
    except ValueError:
        pass
    raise Unusable(path, f"{json.dumps(text)} is not an IPv4 or IPv6 address")

def piece(p, path, region_len):
    """A piece of memory, docs/scenario.md: (offset, bytes). u64 words are little-endian."""
    kinds = [k for k in ("hex", "u64", "fill", "counter") if k in p]
    if len(kinds) != 1:
        raise Unusable(path, "a piece needs exactly one of hex, u64, fill, counter")
    kind, offset, v = kinds[0], get(p, "offset", path, default=0), p[kinds[0]]
    if kind == "hex":
        text = v[2:] if v[:2] in ("0x", "0X") else v
        try:
            return offset, bytes.fromhex("".join(c for c in text if c not in " :_"))
        except ValueError:
            raise Unusable(f"{path}.hex", "not hex bytes") from None
    if kind == "u64":
        words = v if isinstance(v, list) else [v]
        return offset, b"".join(struct.pack("<Q", num(w, f"{path}.u64")) for w in words)
    start = num(v, f"{path}.{kind}")
    if region_len is None and "length" not in p:  # an injected payload: no region to fill to the end of
        raise Unusable(path, f"missing required key \"length\" (for \"{kind}\")")
    length = get(p, "length", path) if "length" in p else region_len - offset
    return offset, bytes((start if kind == "fill" else start + i) & 0xFF for i in range(length))

def adapter_seed(seed, index):
    """conformance/scenario/loader.cpp adapter_seed(): splitmix64 of state seed + index + 1."""
    mask = 2**64 - 1
    z = (seed + 0x9E3779B97F4A7C15 * (index + 1)) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)

def errno_name(e):
    names = {0: "success", EINVAL: "EINVAL", ENOMEM: "ENOMEM", EBUSY: "EBUSY", EPERM: "EPERM",
             EOPNOTSUPP: "EOPNOTSUPP"}
    return names.get(e, f"errno {e} ({os.strerror(e)})")


# --- frames ---------------------------------------------------------------------------------------
class Frame:
    """A frame a device emitted (or an inject step made), decoded as far as a "frames" expectation
    and a fault rule look."""

    def __init__(self, src, data):
        self.src, self.name, self.ip, self.ackreq = src, "a frame that is not RoCEv2", None, False
        self.opcode = self.dqpn = self.psn = self.syndrome = self.msn = self.payload_len = self.dmalen = None
        try:
            self.decode(data)
        except (struct.error, IndexError):
            self.name, self.opcode = "a truncated frame", None

    def decode(self, f):
        ethertype, off = struct.unpack_from("!H", f, 12)[0], 14   # Ethernet without VLAN tags
        if ethertype == 0x0800:
            self.ip, udp = (off, 4), off + (f[off] & 0x0F) * 4    # IPv4: IHL is the header's words
        elif ethertype == 0x86DD:
            self.ip, udp = (off, 6), off + 40
        else:
            return
        dport, udp_len = struct.unpack_from("!HH", f, udp + 2)
        if dport != 4791:
            return
        bth, end = udp + 8, udp + udp_len    # the UDP length, not the frame's: Ethernet may pad
        if end > len(f):
            raise IndexError  # cut short (an injected "truncate"): the model's decoder rejects it
        self.opcode = f[bth]
        self.name, headers = OPCODES.get(self.opcode, (f"0x{self.opcode:02X}", ""))
        self.dqpn = int.from_bytes(f[bth + 5:bth + 8], "big")
        self.ackreq = bool(f[bth + 8] & 0x80)                    # AckReq: BTH byte 8, bit 7
        self.psn = int.from_bytes(f[bth + 9:bth + 12], "big")
        off = bth + 12
        for h in headers:
            if h == "R":
                self.dmalen = struct.unpack_from("!I", f, off + 12)[0]
            elif h == "A":
                self.syndrome, self.msn = f[off], int.from_bytes(f[off + 1:off + 4], "big")
            off += HEADER_LEN[h]
        self.payload_len = end - off - 4 - ((f[bth + 1] >> 4) & 3)   # less the ICRC and PadCnt

    def aeth(self):
        return "none" if self.syndrome is None else aeth_name(self.syndrome)

    def matches(self, m):
        """A fault rule's "match" (refmodel/model/faults.cpp matches()). A frame the model's decoder
        rejects (not RoCEv2, cut short, an unknown opcode) matches only a rule without a match."""
        if self.opcode not in OPCODES:
            return not m
        n, ack = self.name, self.name.partition("_")[2] == "ACKNOWLEDGE"
        response = "RESPONSE" in n or "ACKNOWLEDGE" in n
        classes = {"any": True, "request": not response and n != "CNP_CNP", "response": response,
                   "send": "_SEND_" in n, "write": "_RDMA_WRITE_" in n, "read_request": n.endswith("READ_REQUEST"),
                   "read_response": "READ_RESPONSE" in n, "atomic": n.endswith(("COMPARE_SWAP", "FETCH_ADD")),
                   "atomic_ack": "ATOMIC_ACKNOWLEDGE" in n, "acknowledge": ack, "cnp": n == "CNP_CNP",
                   "ack": ack and self.syndrome & 0x60 == 0, "nak": ack and self.syndrome & 0x60 in (0x20, 0x60)}
        return (classes[m.get("class", "any")]
                and all(m.get(k, v) == v for k, v in [("opcode", self.opcode), ("qp", self.dqpn),
                                                      ("psn", self.psn), ("ackreq", self.ackreq)]))

    def describe(self, names):
        s = f"{names[self.src]} sent {self.name} PSN={self.psn}"
        return s + (f" {self.aeth()} MSN={self.msn}" if self.syndrome is not None else "")


def aeth_name(s):
    """An AETH syndrome as `rocecert decode` names it (refmodel wire/headers.cpp aeth_name)."""
    kind = 0x40 if s & 0x80 else s & 0x60
    if kind == 0x60:
        return NAKS[s & 0x1F] if s & 0x1F < len(NAKS) else "NAK_RESERVED"
    return {0x00: "ACK", 0x20: "RNR_NAK", 0x40: "RESERVED"}[kind]


def ipv4_checksum(header):
    """RFC 791, over a header whose checksum field is zero."""
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def mark_ecn_ce(frame, ip):
    """ECN = CE (11). The IPv4 header checksum covers the TOS byte, so it is recomputed."""
    f, (off, version) = bytearray(frame), ip
    if version == 6:  # traffic class bits 1:0 are byte 1 bits 5:4
        f[off + 1] |= 0x30
        return bytes(f)
    f[off + 1] |= 0x03
    f[off + 10:off + 12] = b"\0\0"
    struct.pack_into("!H", f, off + 10, ipv4_checksum(f[off:off + (f[off] & 0x0F) * 4]))
    return bytes(f)


# --- building a frame (an inject step): refmodel/wire/encode.cpp and icrc.cpp ----------------------
LRH_CRC = zlib.crc32(b"\xff" * 8)  # the 8 bytes of 1s that stand in for the LRH (IBA Annex A17.7.1)

def icrc(packet, ip_len):
    """The RoCEv2 ICRC of IP header .. payload and pad: CRC-32 with the variant fields masked to 1s
    (the IP fields a router changes, the UDP checksum, BTH byte 4: FECN, BECN, Resv6a)."""
    head = bytearray(packet[:ip_len + 8 + 12])
    if ip_len == 20:  # IPv4: TOS, TTL, header checksum
        head[1] = head[8] = head[10] = head[11] = 0xFF
    else:             # IPv6: traffic class, flow label, hop limit
        head[0] |= 0x0F
        head[1:4], head[7] = b"\xff\xff\xff", 0xFF
    head[ip_len + 6:ip_len + 8], head[ip_len + 12] = b"\xff\xff", 0xFF
    return zlib.crc32(packet[len(head):], zlib.crc32(bytes(head), LRH_CRC))

# The extended headers from an inject step's fields (refmodel wire/headers.cpp write_*): the
# RDETH's EE context, the XRCETH's SRQ number and the FETH have no field there and stay zero.
HEADER_BYTES = {"E": lambda w: bytes(4), "X": lambda w: bytes(4), "F": lambda w: bytes(4), "C": lambda w: bytes(16),
                "D": lambda w: struct.pack("!II", w["qkey"], w["src_qp"]),
                "R": lambda w: struct.pack("!QII", w["va"], w["rkey"], w["dmalen"]),
                "T": lambda w: struct.pack("!QIQQ", w["va"], w["rkey"], w["swap_add"], w["compare"]),
                "A": lambda w: struct.pack("!I", w["syndrome"] << 24 | w["msn"]),
                "K": lambda w: struct.pack("!Q", w["orig"]), "I": lambda w: struct.pack("!I", w["imm_data"]),
                "V": lambda w: struct.pack("!I", w["invalidate_rkey"])}

def is_ipv4(gid):
    return gid[:12] == bytes(10) + b"\xff\xff"

def encode_frame(w):
    """The frame of `w` (field: value; a field not there is 0), as finalize() then encode() write
    it: no VLAN tag, no IP options, IPv4 id 0 with DF, TTL/hop limit 64, UDP checksum 0, BTH
    PadCnt from the payload, then the ICRC (little-endian, as rxe stores it)."""
    pad = -len(w["payload"]) % 4
    bth = struct.pack("!BBHII", w["opcode"], w["se"] << 7 | w["migreq"] << 6 | pad << 4 | w["tver"], w["pkey"],
                      w["dqpn"], w["ackreq"] << 31 | w["psn"])
    headers = OPCODES.get(w["opcode"], ("", ""))[1]    # an unknown opcode: the BTH alone
    transport = bth + b"".join(HEADER_BYTES[h](w) for h in headers) + w["payload"] + bytes(pad)
    udp_len = 8 + len(transport) + 4
    udp = struct.pack("!HHHH", w["sport"], 4791, udp_len, 0)
    if is_ipv4(w["sgid"]):
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, w["ecn"], 20 + udp_len, 0, 0x4000, 64, 17, 0,
                                   w["sgid"][12:], w["dgid"][12:]))
        struct.pack_into("!H", ip, 10, ipv4_checksum(ip))
        ethertype = 0x0800
    else:
        ip = struct.pack("!IHBB16s16s", 6 << 28 | w["ecn"] << 20, udp_len, 17, 64, w["sgid"], w["dgid"])
        ethertype = 0x86DD
    packet = bytes(ip) + udp + transport
    return w["eth_dst"] + w["eth_src"] + struct.pack("!H", ethertype) + packet + struct.pack(
        "<I", icrc(packet, len(ip)))


# --- the plugin, its devices, the link --------------------------------------------------------------
class Plugin:
    """The shared object, with restype and argtypes set on every function of dut.h it exports."""

    def __init__(self, path):
        try:  # a bare file name would make dlopen search the library path
            lib = ctypes.CDLL(path if "/" in path else "./" + path)
        except OSError as e:
            raise Unusable(None, f"cannot load the plugin: {e}") from None
        self.fns = {}
        for name, (restype, argtypes) in SIGNATURES.items():
            fn = getattr(lib, "rocecert_dut_" + name, None)
            if fn is None and name in REQUIRED_FUNCTIONS:
                raise Unusable(None, f"the plugin does not export rocecert_dut_{name} (rocecert/dut.h)")
            if fn is not None:
                fn.restype, fn.argtypes = restype, argtypes
                self.fns[name] = fn
        if self.fns["abi_version"]() != 1:
            raise Unusable(None, f"the plugin speaks ABI version {self.fns['abi_version']()}, this script 1")
        caps = self.fns["capabilities"]() if "capabilities" in self.fns else None
        self.capabilities = None if caps is None else {c.strip() for c in caps.decode().split(",")}

    def fn(self, name):
        if name not in self.fns:
            raise Unusable(None, f"the plugin does not export rocecert_dut_{name}, which this step needs")
        return self.fns[name]


class Obj:
    """What a scenario name became: an adapter, or a PD, MR, MW, CQ or QP on one adapter's device."""

    def __init__(self, kind, adapter, **fields):
        self.kind, self.adapter = kind, adapter
        self.__dict__.update(fields)


class Device:
    def __init__(self, index, name, handle, config):
        self.index, self.name, self.handle = index, name, handle
        self.config = config     # kept alive: dut.h does not say whether the plugin keeps its pointers
        self.wake = None         # the scheduled event at the device's next_event_ns
        self.advanced_to = None  # the time of the last rocecert_dut_advance
        self.link = None


class Link:
    """A cable between adapters a and b; its fault rules drop frames or mark them CE."""

    def __init__(self, a, b, latency, gbps, rules):
        self.a, self.b, self.latency, self.gbps, self.rules = a, b, latency, gbps, rules
        self.busy_until = [0, 0]  # per direction: when the sender's wire is free again
        self.active = not any("qp_name" in r for r in rules)  # rules naming QPs wait for them

    def decide(self, direction, frame):
        fired = set()
        for r in self.rules if self.active else []:
            if r["direction"] in (None, direction) and frame.matches(r["match"]):
                r["hits"] += 1  # every rule counts its own occurrences, from 1
                if r["first"] <= r["hits"] <= r["last"]:
                    fired.add(r["action"])
        return fired


STEP_KEYS = {"alloc_pd": {"adapter", "as"}, "create_cq": {"adapter", "as", "cqe"},
             "reg_mr": {"pd", "as", "addr", "length", "access", "iova", "contents", "expect_error", "dut_rkey"},
             "dereg_mr": {"mr", "expect_error"}, "alloc_mw": {"pd", "as", "type", "expect_error"},
             "create_qp": {"pd", "as", "type", "send_cq", "recv_cq", "cap", "sq_sig_all", "dut_qpn",
                           "expect_error"},
             "modify_qp": {"qp", "attr", "attr_mask", "expect_error"}, "post_recv": {"qp", "wr", "expect_error"},
             "post_send": {"qp", "wr", "expect_error"}, "inject": {"from", "qp", "to", "frame"},
             "run": {"for_ns", "until_ns", "poll"},
             "expect": {"frames", "completions", "memory", "qp_state", "async_events"}}
SEND_WR_KEYS = {"wr_id", "opcode", "send_flags", "sg_list", "rkey", "remote_addr", "remote_offset", "imm_data",
                "compare_add", "swap", "invalidate_rkey", "bind", "flush_type", "flush_level", "ah", "remote_qpn",
                "remote_qkey"}


class Runner:
    """Executes a scenario's steps on one plugin device per adapter and checks its expectations."""

    def __init__(self, plugin, scenario, prefix):
        self.plugin, self.sc, self.prefix, self.where = plugin, scenario, prefix, prefix.rstrip(".")
        self.now, self.seq, self.events = 0, 0, []   # events: (time, seq, "wake" | "deliver", data)
        self.devices, self.outbox, self.sent, self.frames_checked = [], [], [], 0
        self.objs, self.failed = {}, set()           # name -> Obj; names whose creation failed
        self.pending, self.async_seen = {}, {}       # polled but not yet checked: per CQ, per adapter
        self.failures, self.checks, self.completions = [], 0, 0
        self.emit_cb = EMIT_FN(self.on_emit)        # referenced for as long as the devices live

    def fail(self, path, message):
        self.failures.append((path, message))

    # --- devices, link and time ------------------------------------------------------------------
    def create_devices(self):
        check_keys(self.sc, self.where, {"adapters", "links", "steps", "seed", "$schema"})
        seed = get(self.sc, "seed", self.where, default=1)
        for i, a in enumerate(get(self.sc, "adapters", self.where, raw)):
            path = f"{self.prefix}adapters[{i}]"
            name = get(a, "name", path, self.new_name)
            cfg = Config(abi_version=1, name=name.encode(), port_mtu=get(a, "mtu", path, default=4096),
                         seed=adapter_seed(seed, i), adapter_json=json.dumps(a).encode(), args=b"",
                         emit=self.emit_cb, host=i + 1)  # host 0 would reach the callback as None
            cfg.mac[:], cfg.gid[:] = get(a, "mac", path, mac_bytes), get(a, "ip", path, gid_bytes)
            error = ctypes.create_string_buffer(512)
            handle = self.plugin.fns["create"](byref(cfg), error, len(error))
            if not handle:  # docs/dut.md: UNSUPPORTED if the reason starts "unsupported:", else FAIL
                why = error.value.decode(errors="replace") or "no reason given"
                if why.startswith("unsupported:"):
                    raise Unusable(path, f"UNSUPPORTED: {why}")
                self.fail(path, f"rocecert_dut_create refused the adapter: {why}")
                return False
            self.devices.append(Device(i, name, handle, cfg))
            self.objs[name] = Obj("adapter", i, mac=bytes(cfg.mac), gid=bytes(cfg.gid))
            self.settle(self.devices[-1])
        for i, l in enumerate(self.sc.get("links", [])):
            path = f"{self.prefix}links[{i}]"
            check_keys(l, path, {"a", "b", "latency_ns", "gbps", "faults"})
            a, b = (self.named(l, end, path, "adapter").adapter for end in "ab")
            gbps = l.get("gbps", 0)
            if not isinstance(gbps, (int, float)) or isinstance(gbps, bool) or gbps < 0:
                raise Unusable(path + ".gbps", "expected a number of Gb/s")
            rules = self.fault_rules(l.get("faults", {}), path + ".faults")
            self.devices[a].link = self.devices[b].link = Link(
                a, b, get(l, "latency_ns", path, default=1000), gbps, rules)
        return True

    def fault_rules(self, faults, path):
        check_keys(faults, path, {"rules", "seed"})  # the seeded probabilities are not modelled here
        rules = []
        for j, r in enumerate(faults.get("rules", [])):
            p = f"{path}.rules[{j}]"
            check_keys(r, p, {"action", "direction", "match", "nth", "from", "to"})
            m = r.get("match", {})
            check_keys(m, p + ".match", {"opcode", "class", "qp", "psn", "ackreq"})
            rule = {"action": get(r, "action", p, checked_name(["drop", "ecn_ce"])), "match": dict(m), "hits": 0,
                    "direction": get(r, "direction", p, lambda v, q: enum(v, ["a_to_b", "b_to_a"], q), None),
                    "first": get(r, "nth", p, default=get(r, "from", p, default=1)),
                    "last": get(r, "nth", p, default=get(r, "to", p, default=NEVER))}
            if "opcode" in m:
                op = m["opcode"]  # a name `rocecert decode` prints, or 0..0xff
                by_number = op not in OPCODE_BY_NAME
                rule["match"]["opcode"] = num(op, p + ".match.opcode") if by_number else OPCODE_BY_NAME[op]
            get(m, "class", p + ".match", checked_name(FAULT_CLASSES), None)
            if not isinstance(m.get("ackreq", False), bool):
                raise Unusable(p + ".match.ackreq", "expected true or false")
            if "psn" in m:
                rule["match"]["psn"] = num(m["psn"], p + ".match.psn")
            if is_name(m.get("qp")):
                rule["qp_name"] = m["qp"]  # the QP's number once it exists (install_faults)
            elif "qp" in m:
                rule["match"]["qp"] = num(m["qp"], p + ".match.qp")
            rules.append(rule)
        return rules

    def install_faults(self):
        """A link's plan is installed after the step that creates the last QP its rules name."""
        for link in {d.link for d in self.devices if d.link and not d.link.active}:
            if all(r["qp_name"] in self.objs for r in link.rules if "qp_name" in r):
                for r in (r for r in link.rules if "qp_name" in r):
                    r["match"]["qp"] = self.objs[r["qp_name"]].qpn
                link.active = True

    def on_emit(self, host, frame, length):
        # The bytes are the plugin's only during the callback (dut.h): copied at once.
        self.outbox.append((host, ctypes.string_at(frame, length)))

    def schedule(self, t, kind, data):
        self.seq += 1
        self.events.append((t, self.seq, kind, data))
        return self.events[-1]

    def advance(self, dev, always=False):
        """Brings the device to the current time. Between two verbs of one instant it is not
        advanced again: that would run work the first verb queued before the second verb, which
        the golden model (one event queue; steps run between its events) never does."""
        if always or dev.advanced_to is None or self.now > dev.advanced_to:
            self.plugin.fns["advance"](dev.handle, self.now)
            dev.advanced_to = self.now

    def call(self, dev, name, *args):
        """A plugin function called at the current time: advance, call, then settle."""
        fn = self.plugin.fn(name)
        self.advance(dev)
        result = fn(dev.handle, *args)
        self.settle(dev)
        return result

    def settle(self, dev):
        """Puts what the device emitted on the link, and schedules its next wake-up."""
        out, self.outbox = self.outbox, []
        for host, data in out:
            self.transmit(self.devices[host - 1], data)
        nxt = self.plugin.fns["next_event_ns"](dev.handle)
        at = None if nxt == NEVER else max(nxt, self.now)
        if dev.wake is not None and dev.wake[0] != at:
            self.events.remove(dev.wake)
            dev.wake = None
        if at is not None and dev.wake is None:
            dev.wake = self.schedule(at, "wake", dev)

    def transmit(self, dev, data):
        frame = Frame(dev.index, data)
        self.sent.append(frame)  # sent, whatever the link then does to it
        if dev.link is not None:
            self.carry(dev.link, dev.index, data, frame)

    def carry(self, link, src, data, frame):
        """The link takes a frame at adapter src's end: the frames a device emits, and the ones an
        inject step makes in its adapter's name, alike."""
        direction = 0 if src == link.a else 1
        # Serialization at the line rate with preamble, SFD, IFG and FCS (24 bytes), as the
        # model's Link does: the order of the frames of both ends can depend on it.
        start = max(self.now, link.busy_until[direction])
        if link.gbps > 0:
            start += int((len(data) + 24) * 8.0 / link.gbps)
        link.busy_until[direction] = start
        fired = link.decide(direction, frame)
        if "drop" in fired:
            return
        if "ecn_ce" in fired and frame.ip is not None:
            data = mark_ecn_ce(data, frame.ip)
        receiver = self.devices[link.b if direction == 0 else link.a]
        self.schedule(start + link.latency, "deliver", (receiver, data))

    def run_events(self, limit):
        """Wake-ups and deliveries up to `limit`, in time order; ties in the order scheduled."""
        last, same = None, 0
        while self.events:
            event = min(self.events)
            if event[0] > limit:
                return
            self.events.remove(event)
            t, _, kind, data = event
            same = same + 1 if t == last else 0
            if same > 100_000:  # a device that never gets past this instant would hang the run
                self.fail(self.where, f"the devices keep asking to run at {t} ns; the run stops there")
                return
            last, self.now = t, max(self.now, t)
            if kind == "wake":
                data.wake = None
                self.advance(data, always=True)  # it asked to run now, also when already here
                self.settle(data)
            else:
                dst, frame = data
                self.call(dst, "receive", frame, len(frame))

    # --- names and values ----------------------------------------------------------------------
    def ref(self, v, kinds, path):
        """The object a name refers to; a step using one whose creation failed is skipped."""
        if isinstance(v, str) and v in self.objs and self.objs[v].kind in kinds:
            return self.objs[v]
        if isinstance(v, str) and v in self.failed:
            raise Skip(f"\"{v}\" does not exist (its creation failed)")
        raise Unusable(path, f"expected the name of {' or '.join(kinds)} created earlier, got {json.dumps(v)}")

    def named(self, obj, key, path, *kinds):
        return get(obj, key, path, lambda v, p: self.ref(v, kinds, p))

    def key(self, v, path, remote=True):
        """An lkey or rkey: an MR by name (an MW: its current rkey), or a literal number."""
        if not is_name(v):
            return num(v, path)
        o = self.ref(v, ("mr", "mw"), path)
        if o.kind == "mr":
            return o.rkey if remote else o.lkey
        out = c_uint32(o.rkey)  # a bind gives the window a new rkey: asked for each time
        if self.call(self.devices[o.adapter], "mw_rkey", o.handle, byref(out)) == 0:
            o.rkey = out.value
        return o.rkey

    def qpn(self, v, path):
        return self.ref(v, ("qp",), path).qpn if is_name(v) else num(v, path)

    def qpn24(self, v, path):
        """A QP's number on the wire: its name, or a number of 24 bits at most."""
        return self.qpn(v, path) if is_name(v) else bounded(0xFFFFFF)(v, path)

    def rkey32(self, v, path):
        """An rkey on the wire: an MR or MW name (this run's key), or a number of 32 bits at most."""
        return self.key(v, path) if is_name(v) else bounded(U32)(v, path)

    def av(self, spec, path):
        """An address vector: "peer" (adapter or QP) gives dgid and dmac; dgid and dmac override."""
        check_keys(spec, path, {"peer", "dgid", "dmac", "sgid_index", "hop_limit", "traffic_class", "flow_label",
                                "udp_sport"})
        av = Av(**{k: get(spec, k, path, default=d) for k, d in [("sgid_index", 0), ("hop_limit", 64),
                ("traffic_class", 0), ("flow_label", 0), ("udp_sport", 0)]})
        if "peer" in spec:
            adapter = self.objs[self.devices[self.named(spec, "peer", path, "adapter", "qp").adapter].name]
            av.dgid[:], av.dmac[:] = adapter.gid, adapter.mac
        elif "dgid" not in spec or "dmac" not in spec:
            raise Unusable(path, "needs \"peer\", or both \"dgid\" and \"dmac\"")
        if "dgid" in spec:
            av.dgid[:] = get(spec, "dgid", path, gid_bytes)
        if "dmac" in spec:
            av.dmac[:] = get(spec, "dmac", path, mac_bytes)
        return av

    def sges(self, specs, path):
        """SGEs. With an MR name: addr = the MR's iova + offset, length = the rest of the MR."""
        out = []
        for i, e in enumerate(specs):
            p = f"{path}[{i}]"
            check_keys(e, p, {"lkey", "offset", "addr", "length"})
            if is_name(e.get("lkey")):
                mr, offset = self.named(e, "lkey", p, "mr"), get(e, "offset", p, default=0)
                out.append(Sge(get(e, "addr", p, default=mr.iova + offset),
                               get(e, "length", p, default=mr.length - offset), mr.lkey))
            else:
                out.append(Sge(get(e, "addr", p), get(e, "length", p), get(e, "lkey", p)))
        return (Sge * len(out))(*out)

    def verb_result(self, s, path, rc):
        """0 or an errno, held to the step's expect_error at errno level."""
        want_name = s.get("expect_error")
        want = 0 if want_name is None else ERROR_ERRNO.get(want_name, EINVAL)
        self.checks += want_name is not None
        if rc != want:
            self.fail(path, f"{s['op']}: expected {want_name or 'success'} ({errno_name(want)}), "
                            f"got {errno_name(rc)}")
        return rc == 0

    def new_name(self, v, path):
        if not is_name(v) or v in self.objs or v in self.failed:
            raise Unusable(path, f"expected a new object name, got {json.dumps(v)}")
        return v

    def created(self, s, path, rc, obj):
        name = get(s, "as", path, self.new_name)
        if self.verb_result(s, path, rc):
            self.objs[name] = obj
        else:
            self.failed.add(name)

    # --- steps --------------------------------------------------------------------------------------
    def step_alloc_pd(self, s, path):
        a, out = self.named(s, "adapter", path, "adapter"), c_uint32()
        rc = self.call(self.devices[a.adapter], "alloc_pd", byref(out))
        self.created(s, path, rc, Obj("pd", a.adapter, handle=out.value))

    def step_reg_mr(self, s, path):
        pd, addr, length = self.named(s, "pd", path, "pd"), get(s, "addr", path), get(s, "length", path)
        access = get(s, "access", path, lambda v, p: flags(v, ACCESS, p))
        iova = get(s, "iova", path, default=addr)  # ibv_reg_mr is ibv_reg_mr_iova with iova = addr
        contents = s.get("contents", [])
        for i, p in enumerate(contents if isinstance(contents, list) else [contents]):
            offset, data = piece(p, f"{path}.contents" + (f"[{i}]" if isinstance(contents, list) else ""), length)
            if self.call(self.devices[pd.adapter], "mem_write", addr + offset, data, len(data)) != 0:
                self.fail(path, f"contents: rocecert_dut_mem_write at {addr + offset:#x} failed")
        lkey, rkey = c_uint32(), c_uint32()
        rc = self.call(self.devices[pd.adapter], "reg_mr", pd.handle, addr, length, iova, access, byref(lkey),
                       byref(rkey))
        zero_based = access & ACCESS["ZERO_BASED"]  # then SGEs and remote addresses count from 0
        self.created(s, path, rc, Obj("mr", pd.adapter, addr=addr, length=length, iova=0 if zero_based else iova,
                                      lkey=lkey.value, rkey=rkey.value))

    def step_dereg_mr(self, s, path):
        # The MR keeps its name and keys: a later work request naming it carries the stale key.
        mr = self.named(s, "mr", path, "mr")
        self.verb_result(s, path, self.call(self.devices[mr.adapter], "dereg_mr", mr.lkey))

    def step_alloc_mw(self, s, path):
        pd, mw, rkey = self.named(s, "pd", path, "pd"), c_uint32(), c_uint32()
        rc = self.call(self.devices[pd.adapter], "alloc_mw", pd.handle, get(s, "type", path, default=2),
                       byref(mw), byref(rkey))
        self.created(s, path, rc, Obj("mw", pd.adapter, handle=mw.value, rkey=rkey.value))

    def step_create_cq(self, s, path):
        a, out = self.named(s, "adapter", path, "adapter"), c_uint32()
        rc = self.call(self.devices[a.adapter], "create_cq", get(s, "cqe", path, default=64), byref(out))
        self.created(s, path, rc, Obj("cq", a.adapter, handle=out.value))

    def step_create_qp(self, s, path):
        pd, send_cq = self.named(s, "pd", path, "pd"), self.named(s, "send_cq", path, "cq")
        recv_cq = self.named(s, "recv_cq", path, "cq") if "recv_cq" in s else send_cq
        cap = s.get("cap", {})
        defaults = {"max_send_wr": 64, "max_recv_wr": 64, "max_send_sge": 4, "max_recv_sge": 4,
                    "max_inline_data": 64}
        check_keys(cap, path + ".cap", defaults)
        caps = {k: get(cap, k, path + ".cap", default=d) for k, d in defaults.items()}
        init = QpInit(qp_type=get(s, "type", path, lambda v, p: enum(v, QP_TYPES, p)), pd=pd.handle,
                      send_cq=send_cq.handle, recv_cq=recv_cq.handle, sq_sig_all=s.get("sq_sig_all") is True,
                      **caps)
        out = c_uint32()
        rc = self.call(self.devices[pd.adapter], "create_qp", byref(init), byref(out))
        self.created(s, path, rc, Obj("qp", pd.adapter, qpn=out.value))

    def step_modify_qp(self, s, path):
        qp, attr, mask = self.named(s, "qp", path, "qp"), QpAttr(), 0
        state = lambda v, p: enum(v, QP_STATES, p)
        attrs = {  # attribute: (its mask bit, how its value is read)
            "qp_state": ("STATE", state), "cur_qp_state": ("CUR_STATE", state),
            "path_mtu": ("PATH_MTU", mtu_code),
            "dest_qp_num": ("DEST_QPN", self.qpn), "ah_attr": ("AV", self.av),
            "qp_access_flags": ("ACCESS_FLAGS", lambda v, p: flags(v, ACCESS, p)),
            "path_mig_state": ("PATH_MIG_STATE", lambda v, p: enum(v, ["MIGRATED", "REARM", "ARMED"], p)),
            "en_sqd_async_notify": ("EN_SQD_ASYNC_NOTIFY", lambda v, p: v is True), "port_num": ("PORT", num),
            "qkey": ("QKEY", num), "rq_psn": ("RQ_PSN", num), "sq_psn": ("SQ_PSN", num),
            "pkey_index": ("PKEY_INDEX", num), "timeout": ("TIMEOUT", num), "retry_cnt": ("RETRY_CNT", num),
            "rnr_retry": ("RNR_RETRY", num), "min_rnr_timer": ("MIN_RNR_TIMER", num),
            "max_rd_atomic": ("MAX_QP_RD_ATOMIC", num), "max_dest_rd_atomic": ("MAX_DEST_RD_ATOMIC", num),
            "rate_limit": ("RATE_LIMIT", num)}
        given = get(s, "attr", path, raw)
        check_keys(given, path + ".attr", attrs)
        for name in given:
            if name in attrs:
                setattr(attr, name, get(given, name, path + ".attr", attrs[name][1]))
                mask |= ATTR_BITS[attrs[name][0]]  # the mask is the set of attributes given ...
        mask = get(s, "attr_mask", path, lambda v, p: flags(v, ATTR_BITS, p), mask)   # ... unless stated
        self.verb_result(s, path, self.call(self.devices[qp.adapter], "modify_qp", qp.qpn, byref(attr), mask))

    def step_post_recv(self, s, path):
        qp, wr = self.named(s, "qp", path, "qp"), get(s, "wr", path, raw)
        check_keys(wr, path + ".wr", {"wr_id", "sg_list"})
        sges = self.sges(wr.get("sg_list", []), path + ".wr.sg_list")
        rc = self.call(self.devices[qp.adapter], "post_recv", qp.qpn, get(wr, "wr_id", path + ".wr", default=0),
                       sges, len(sges))
        self.verb_result(s, path, rc)

    def step_post_send(self, s, path):
        qp, w, p = self.named(s, "qp", path, "qp"), get(s, "wr", path, raw), path + ".wr"
        check_keys(w, p, SEND_WR_KEYS)
        sges = self.sges(w.get("sg_list", []), p + ".sg_list")
        wr = SendWr(wr_id=get(w, "wr_id", p, default=0),
                    opcode=get(w, "opcode", p, lambda v, q: enum(v, WR_OPCODES, q)),
                    send_flags=get(w, "send_flags", p, lambda v, q: flags(v, SEND_FLAGS, q), 0),
                    sg_list=ctypes.cast(sges, POINTER(Sge)), num_sge=len(sges))
        if "rkey" in w:  # remote_addr defaults to the MR's iova + remote_offset
            wr.rkey = self.key(w["rkey"], p + ".rkey")
            wr.remote_addr = get(w, "remote_addr", p) if "remote_addr" in w else (
                self.named(w, "rkey", p, "mr").iova + get(w, "remote_offset", p, default=0))
        for name in ("imm_data", "compare_add", "swap", "remote_qkey"):
            setattr(wr, name, get(w, name, p, default=0))
        if "invalidate_rkey" in w:  # LOCAL_INV of an MR names its lkey
            remote = wr.opcode != WR_OPCODES["LOCAL_INV"]
            wr.invalidate_rkey = self.key(w["invalidate_rkey"], p + ".invalidate_rkey", remote)
        wr.remote_qpn = get(w, "remote_qpn", p, self.qpn, 0)
        if "ah" in w:
            wr.ah, wr.has_ah = get(w, "ah", p, self.av), 1
        wr.flush_type = get(w, "flush_type", p, lambda v, q: flags(v, {"GLOBAL": 1, "PERSISTENT": 2}, q), 0)
        wr.flush_level = get(w, "flush_level", p, lambda v, q: enum(v, ["RANGE", "MR"], q), 0)
        if "bind" in w:
            self.bind(wr, w["bind"], p + ".bind")
        self.verb_result(s, path, self.call(self.devices[qp.adapter], "post_send", qp.qpn, byref(wr)))

    def bind(self, wr, b, p):
        """BIND_MW: the ABI names the window by its handle; addr and length default to the MR's."""
        check_keys(b, p, {"mw", "mr", "addr", "offset", "length", "access", "dut_rkey"})
        wr.bind_mw = self.named(b, "mw", p, "mw").handle if is_name(b.get("mw")) else get(b, "mw", p)
        wr.bind_mr_lkey = get(b, "mr", p, lambda v, q: self.key(v, q, remote=False))
        if is_name(b["mr"]):
            mr, offset = self.named(b, "mr", p, "mr"), get(b, "offset", p, default=0)
            wr.bind_addr, wr.bind_length = mr.iova + offset, mr.length - offset
        wr.bind_addr = get(b, "addr", p, default=wr.bind_addr)
        wr.bind_length = get(b, "length", p, default=wr.bind_length)
        wr.bind_access = get(b, "access", p, lambda v, q: flags(v, ACCESS, q))

    def step_inject(self, s, path):
        """A frame built field by field (docs/scenario.md, inject) enters the link as if adapter
        `from` had sent it: link latency and fault rules apply, yet it is not one of the frames
        `from` sent, which "frames" expectations list (the C++ runner reports it to on_inject)."""
        src = self.named(s, "from", path, "adapter").adapter
        qp = get(s, "qp", path, lambda v, p: self.ref(v, ("qp",), p) if is_name(v) else self.qpn24(v, p))
        if isinstance(qp, Obj):  # a QP name says the destination adapter
            if "to" in s:
                raise Unusable(path + ".to", "\"to\" goes with a QP number; a QP name says its adapter")
            to, dqpn = qp.adapter, qp.qpn
        else:
            to, dqpn = self.named(s, "to", path, "adapter").adapter, qp
        names = [d.name for d in self.devices]
        if to == src:
            raise Unusable(path + ".qp", f"the frame goes from \"{names[src]}\" to itself; inject toward another "
                                         f"adapter")
        link = next((l for l in {d.link for d in self.devices} if l and {l.a, l.b} == {src, to}), None)
        if link is None:
            raise Unusable(path, f"no link joins \"{names[src]}\" and \"{names[to]}\"")
        data = self.inject_frame(get(s, "frame", path, raw), path + ".frame", src, to, dqpn)
        self.carry(link, src, data, Frame(src, data))

    def inject_frame(self, f, p, src, to, dqpn):
        """The bytes of an inject step's frame, read as conformance/scenario/loader_inject.cpp reads
        it, with the names resolved to this run's numbers as the C++ runner's exec() does."""
        check_keys(f, p, INJECT_FRAME_KEYS)
        w = defaultdict(int, dqpn=dqpn, pkey=0xFFFF, sport=0xC000, payload=b"")
        w["opcode"] = get(f, "opcode", p, opcode_number)
        name, headers = OPCODES.get(w["opcode"], (f"opcode {w['opcode']:#04x}", None))
        known, headers = headers is not None, headers or ""
        for h, keys in INJECT_HEADER_KEYS:
            for k in keys:
                if k in f and h not in headers:
                    raise Unusable(f"{p}.{k}", f"\"{k}\" belongs to the {HEADER_NAME[h]}, which {name} does not "
                                               f"carry")
        # Addresses: the two adapters', unless overridden (a packet from elsewhere, or not for B).
        a, b = (self.objs[self.devices[i].name] for i in (src, to))
        w["eth_src"], w["eth_dst"] = a.mac, b.mac
        w["sgid"], w["dgid"] = get(f, "src_ip", p, gid_bytes, a.gid), get(f, "dst_ip", p, gid_bytes, b.gid)
        if is_ipv4(w["sgid"]) != is_ipv4(w["dgid"]):
            raise Unusable(p, "the source and destination addresses must both be IPv4 or both IPv6")
        w["ecn"], w["sport"] = get(f, "ecn", p, bounded(3), 0), get(f, "sport", p, bounded(0xFFFF), w["sport"])
        w["psn"] = get(f, "psn", p, bounded(0xFFFFFF))
        w["pkey"], w["tver"] = get(f, "pkey", p, bounded(0xFFFF), w["pkey"]), get(f, "tver", p, bounded(15), 0)
        for key in ("ackreq", "se", "migreq"):
            w[key] = get(f, key, p, boolean, False)
        self.inject_target(f, p, w, name, headers)
        for key, width in [("dmalen", U32), ("swap_add", U64), ("compare", U64), ("msn", 0xFFFFFF), ("orig", U64),
                           ("qkey", U32), ("imm_data", U32)]:
            w[key] = get(f, key, p, bounded(width), 0)
        w["syndrome"] = get(f, "syndrome", p, syndrome_number, 0)
        w["src_qp"] = get(f, "src_qp", p, self.qpn24, 0)
        w["invalidate_rkey"] = get(f, "invalidate_rkey", p, self.rkey32, 0)
        if "payload" in f:
            if not known or name.endswith(NO_PAYLOAD):
                raise Unusable(p + ".payload", f"{name} carries no payload")
            check_keys(f["payload"], p + ".payload", PIECE_KEYS)
            offset, data = piece(f["payload"], p + ".payload", None)   # "offset": leading zero bytes
            if offset + len(data) > MAX_INJECT_PAYLOAD:
                raise Unusable(p + ".payload", f"a payload of {offset + len(data)} bytes is above the limit of "
                                               f"{MAX_INJECT_PAYLOAD}")
            w["payload"] = bytes(offset) + data
        bad_icrc = get(f, "icrc", p, raw, None)
        if bad_icrc not in (None, "bad"):
            raise Unusable(p + ".icrc", f"\"icrc\" is \"bad\" (or absent), not {json.dumps(bad_icrc)}")
        frame = encode_frame(w)
        if bad_icrc:  # inverted after it is computed
            frame = frame[:-4] + bytes(x ^ 0xFF for x in frame[-4:])
        return frame[:get(f, "truncate", p, bounded(0xFFFF), len(frame))]

    def inject_target(self, f, p, w, name, headers):
        """The RETH's or AtomicETH's rkey and va: "va" is absolute, "va_offset" counts from the iova
        of the MR "rkey" names."""
        for k in ("rkey", "va", "va_offset"):
            if k in f and "R" not in headers and "T" not in headers:
                raise Unusable(f"{p}.{k}", f"\"{k}\" needs a RETH or an AtomicETH, which {name} does not carry")
        if "va" in f and "va_offset" in f:
            raise Unusable(p + ".va_offset", "\"va\" and \"va_offset\" exclude each other")
        w["rkey"] = get(f, "rkey", p, self.rkey32, 0)
        w["va"] = get(f, "va", p, bounded(U64), 0)
        if "va_offset" in f:
            mr = self.ref(f["rkey"], ("mr", "mw"), p + ".rkey") if is_name(f.get("rkey")) else None
            if mr is None or mr.kind != "mr":
                raise Unusable(p + ".va_offset", "\"va_offset\" needs \"rkey\" to name an MR; use \"va\"")
            w["va"] = (mr.iova + get(f, "va_offset", p, bounded(U64))) & U64

    def step_run(self, s, path):
        if "until_ns" in s or "for_ns" in s:
            end = get(s, "until_ns", path) if "until_ns" in s else self.now + get(s, "for_ns", path)
            if end < self.now:
                self.fail(path, f"run: until_ns {end} is in the past (simulated time is {self.now} ns)")
            else:
                self.run_events(end)
                self.now = end
        else:  # until idle: time stops at the last event
            self.run_events(self.now + IDLE_LIMIT_NS)
            if self.events:
                print(f"note: {path}: still busy after 10 s of simulated time")
        if s.get("poll", True) is not False:
            self.poll_all()

    # --- expectations ----------------------------------------------------------------------------
    def poll_all(self):
        """Every CQ polled empty, in creation order, and the asynchronous events taken."""
        wcs = (Wc * 16)()
        for name, o in self.objs.items():
            while o.kind == "cq":
                n = self.call(self.devices[o.adapter], "poll_cq", o.handle, wcs, 16)
                if n < 0:
                    self.fail(self.where, f"poll_cq on \"{name}\": {errno_name(-n)}")
                if n <= 0:
                    break
                self.completions += n
                self.pending.setdefault(name, []).extend(Wc.from_buffer_copy(w) for w in wcs[:n])
        event = AsyncEvent()
        for dev in self.devices if "poll_async_event" in self.plugin.fns else []:
            while self.call(dev, "poll_async_event", byref(event)) == 1:
                self.async_seen.setdefault(dev.index, []).append(event.type)

    def qp_label(self, adapter, qpn):
        names = [n for n, o in self.objs.items() if o.kind == "qp" and o.adapter == adapter and o.qpn == qpn]
        return f"{names[0]} ({qpn:#x})" if names else f"{qpn:#x}"

    def compare(self, path, triples, context=""):
        """(field, expected, got): one failure naming every field that differs."""
        diffs = [f"{field}: expected {want}, got {got}" for field, want, got in triples if str(want) != str(got)]
        if diffs:
            self.fail(path, "; ".join(diffs) + context)
        return bool(diffs)

    def step_expect(self, s, path):
        self.poll_all()
        if "frames" in s:
            self.check_frames(s["frames"], path + ".frames")
        for cq_name, wants in s.get("completions", {}).items():
            self.check_completions(cq_name, wants, f"{path}.completions.{cq_name}")
        for i, m in enumerate(s.get("memory", [])):
            self.check_memory(m, f"{path}.memory[{i}]")
        for qp_name, state in s.get("qp_state", {}).items():
            self.check_qp_state(qp_name, state, f"{path}.qp_state.{qp_name}")
        for adapter, wants in s.get("async_events", {}).items():
            self.check_async(adapter, wants, f"{path}.async_events.{adapter}")

    def check_frames(self, wants, path):
        """The frames sent since the previous "frames" check, stream by stream: a sender's frames to
        one destination QP ("qp"; without it, the sender's other frames), CNPs apart, each in order.
        How streams interleave is timing; an "optional" frame (a coalescable ACK) may be absent."""
        sent, self.frames_checked = self.sent[self.frames_checked:], len(self.sent)
        names, reported = [d.name for d in self.devices], 0
        is_cnp = lambda name: name.startswith("CNP")
        streams, order = {}, []
        for i, x in enumerate(wants):
            p = f"{path}[{i}]"
            check_keys(x, p, {"from", "opcode", "qp", "psn", "ackreq", "aeth", "msn", "payload_len", "dmalen",
                              "optional"})
            get(x, "opcode", p, checked_name(OPCODE_BY_NAME))
            src = names.index(get(x, "from", p, checked_name(names)))
            qpn = self.named(x, "qp", p, "qp").qpn if "qp" in x else None
            key = (src, qpn, is_cnp(x["opcode"]))
            if key not in streams:
                streams[key], _ = [], order.append(key)
            streams[key].append((i, x))
        got, stray = {k: [] for k in streams}, []
        for f in sent:
            exact, anyqp = (f.src, f.dqpn, is_cnp(f.name)), (f.src, None, is_cnp(f.name))
            (got[exact] if exact in got else got[anyqp] if anyqp in got else stray).append(f)
        for key in order:
            have, h = got[key], 0
            for i, x in streams[key]:
                p = f"{path}[{i}]"
                if h >= len(have):
                    if x.get("optional"):
                        continue
                    self.checks += 1
                    self.fail(p, f"missing: {names[key[0]]} sent {len(have)} frame(s) of this stream since the last "
                                 f"\"frames\" check")
                    break
                f = have[h]
                triples = [("opcode", x["opcode"], f.name)]
                for field, value in [("psn", f.psn), ("msn", "none" if f.syndrome is None else f.msn),
                                     ("payload_len", f.payload_len),
                                     ("dmalen", "none" if f.dmalen is None else f.dmalen)]:
                    if field in x:
                        triples.append((field, get(x, field, p), value))
                if "ackreq" in x:
                    triples.append(("ackreq", str(x["ackreq"]).lower(), str(f.ackreq).lower()))
                if "aeth" in x:
                    triples.append(("aeth", x["aeth"], f.aeth()))
                if x.get("optional") and any(str(w) != str(g) for _, w, g in triples):
                    continue  # coalesced away: the next expected frame must match this one
                self.checks += 1
                h += 1
                if self.compare(p, triples, f" ({f.describe(names)})"):
                    reported += 1
                    if reported == 10:
                        return  # the rest would mostly repeat one shift
            if h < len(have):
                self.checks += 1
                self.fail(path, f"{len(have) - h} more frame(s) than expected from {names[key[0]]}, the first: "
                                f"{have[h].describe(names)}")
        if stray:
            self.checks += 1
            self.fail(path, f"{len(stray)} frame(s) of no expected stream, the first: {stray[0].describe(names)}")

    def check_completions(self, cq_name, wants, path):
        cq, got = self.ref(cq_name, ("cq",), path), self.pending.pop(cq_name, [])
        status = lambda v: WC_STATUSES[v] if v < len(WC_STATUSES) else v
        flag_names = lambda v: "|".join(n for n, b in WC_FLAGS.items() if v & b) or "none"
        for i, x in enumerate(wants):
            p = f"{path}[{i}]"
            check_keys(x, p, {"wr_id", "status", "opcode", "byte_len", "imm_data", "wc_flags", "src_qp", "qp"})
            self.checks += 1
            if i >= len(got):
                self.fail(p, f"missing: CQ \"{cq_name}\" had {len(got)} completion(s)")
                continue
            w = got[i]
            triples = [("wr_id", get(x, "wr_id", p), w.wr_id),
                       ("status", get(x, "status", p, checked_name(WC_STATUSES)), status(w.status))]
            if "opcode" in x:
                wc_opcode = next((n for n, v in WC_OPCODES.items() if v == w.opcode), w.opcode)
                triples.append(("opcode", get(x, "opcode", p, checked_name(WC_OPCODES)), wc_opcode))
            if "byte_len" in x:
                triples.append(("byte_len", get(x, "byte_len", p), w.byte_len))
            if "imm_data" in x:
                triples.append(("imm_data", hex(get(x, "imm_data", p)), hex(w.imm_data)))
            if "wc_flags" in x:
                want = get(x, "wc_flags", p, lambda v, q: flags(v, WC_FLAGS, q))
                triples.append(("wc_flags", flag_names(want), flag_names(w.wc_flags)))
            if "src_qp" in x:
                triples.append(("src_qp", hex(get(x, "src_qp", p, self.qpn)), hex(w.src_qp)))
            if "qp" in x:
                qpn = self.named(x, "qp", p, "qp").qpn
                triples.append(("qp", self.qp_label(cq.adapter, qpn), self.qp_label(cq.adapter, w.qp_num)))
            self.compare(p, triples)
        for i, w in enumerate(got[len(wants):], len(wants)):
            self.fail(path, f"unexpected completion #{i}: wr_id {w.wr_id} {status(w.status)} "
                            f"byte_len {w.byte_len} qp {self.qp_label(cq.adapter, w.qp_num)}")

    def check_memory(self, m, path):
        check_keys(m, path, {"mr", "offset", "hex", "u64", "fill", "counter", "length"})
        mr = self.named(m, "mr", path, "mr")
        offset, want = piece(m, path, mr.length)
        addr = mr.addr + offset  # host memory: the MR's address, not its iova
        self.checks += 1
        buf = ctypes.create_string_buffer(len(want))
        if self.call(self.devices[mr.adapter], "mem_read", addr, buf, len(want)) != 0:
            self.fail(path, f"rocecert_dut_mem_read of {len(want)} bytes at {addr:#x} failed")
        elif buf.raw != want:
            first = next(i for i in range(len(want)) if buf.raw[i] != want[i])
            self.fail(path, f"bytes differ from offset {first} (address {addr + first:#x}): expected "
                            f"{want[first:first + 16].hex()}, got {buf.raw[first:first + 16].hex()}")

    def check_qp_state(self, qp_name, state, path):
        qp, out, want = self.ref(qp_name, ("qp",), path), c_uint32(), QP_STATES[enum(state, QP_STATES, path)]
        self.checks += 1
        if self.call(self.devices[qp.adapter], "query_qp_state", qp.qpn, byref(out)) != 0:
            self.fail(path, "the QP no longer exists")
        else:
            self.compare(path, [("qp_state", want, QP_STATES[out.value] if out.value < 7 else out.value)])

    def check_async(self, adapter_name, wants, path):
        adapter = self.ref(adapter_name, ("adapter",), path).adapter
        self.plugin.fn("poll_async_event")
        got = [ASYNC_EVENTS[t] if t < len(ASYNC_EVENTS) else t for t in self.async_seen.pop(adapter, [])]
        for i, x in enumerate(wants):
            self.checks += 1
            if isinstance(x, dict):
                raise Unusable(f"{path}[{i}]", "events with an element ({\"event\": ...}) are not supported here")
            enum(x, ASYNC_EVENTS, f"{path}[{i}]")
            if i >= len(got):
                self.fail(f"{path}[{i}]", f"missing: adapter \"{adapter_name}\" raised {len(got)} event(s)")
            else:
                self.compare(f"{path}[{i}]", [("event", x, got[i])])
        for i, kind in enumerate(got[len(wants):], len(wants)):
            self.fail(path, f"unexpected asynchronous event #{i}: {kind}")

    # --- the whole run -------------------------------------------------------------------------------
    def run(self):
        steps = get(self.sc, "steps", self.where, raw) if self.create_devices() else []
        for i, s in enumerate(steps):
            self.where = path = f"{self.prefix}steps[{i}]"
            op = s.get("op") if isinstance(s, dict) else None
            if op not in STEP_KEYS:
                raise Unusable(path + ".op", f"step {json.dumps(op)} is not supported by this example")
            check_keys(s, path, STEP_KEYS[op] | {"op"})
            try:
                getattr(self, "step_" + op)(s, path)
            except Skip as e:
                self.fail(path, f"{op} skipped: {e}")
            self.install_faults()
        self.poll_all()
        for dev in self.devices:
            self.plugin.fns["destroy"](dev.handle)


def main():
    parser = argparse.ArgumentParser(description="Run one test vector on a rocecert/dut.h plugin.")
    parser.add_argument("plugin", help="the plugin's shared object (PATH.so)")
    parser.add_argument("vector", help="a vector (vectors/AREA/NAME.json), or a bare scenario")
    args = parser.parse_args()
    me, runner = os.path.basename(sys.argv[0]), None
    try:
        plugin = Plugin(args.plugin)
    except Unusable as e:
        print(f"{me}: {args.plugin}: {e.args[1]}", file=sys.stderr)
        return 2
    try:
        try:
            with open(args.vector, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            raise Unusable("", f"cannot read the file: {e.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise Unusable("", f"invalid JSON: {e}") from None
        is_vector = isinstance(doc, dict) and "scenario" in doc   # a scenario file is one itself
        scenario = doc["scenario"] if is_vector else doc
        missing = set(doc.get("capabilities", [])) - (plugin.capabilities or set()) if is_vector else set()
        if plugin.capabilities is not None and missing:
            raise Unusable("capabilities", f"UNSUPPORTED: the plugin does not offer {', '.join(sorted(missing))}")
        runner = Runner(plugin, scenario, "scenario." if is_vector else "")
        runner.run()
    except Unusable as e:
        path = e.args[0] if e.args[0] is not None else runner.where if runner else ""
        print(f"{me}: {args.vector}: {path or '(the file)'}: {e.args[1]}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as e:
        # A value of the wrong type somewhere in the step: name the step, not a traceback.
        where = runner.where if runner else "(the file)"
        print(f"{me}: {args.vector}: {where}: malformed step ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    stats = f"{len(runner.sent)} frames, {runner.completions} completions, {runner.now} ns simulated"
    for path, message in runner.failures:
        print(f"FAIL {path}: {message}")
    if runner.failures:
        print(f"FAIL {args.vector}: {len(runner.failures)} failure(s), {runner.checks} expectations checked "
              f"({stats})")
        return 1
    print(f"PASS {args.vector}: {runner.checks} expectations met ({stats})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
