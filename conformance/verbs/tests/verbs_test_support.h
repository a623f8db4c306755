// Shared by the verbs DUT's tests: committed vectors, and fake devices as rxe would describe
// itself (rxe_param.h limits) on two hosts.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "rocecert/vectors/vectors.h"
#include "rocecert/verbs/fake_verbs.h"

namespace rocecert::verbs::testing {

inline std::string vector_path(const std::string& id) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/" + id + ".json";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline vectors::Loaded load(const std::string& id) {
  return vectors::load(vector_path(id));
}

// rc-rdma-write-1pkt-00 with a region of 1 TiB before mrA that the vector expects to be refused
// (INDEX_EXHAUSTED, which is ENOMEM): the text, to parse.
inline std::string with_refused_huge_region() {
  std::string text = read_text(vector_path("opcodes/rc-rdma-write-1pkt-00"));
  const std::size_t at = text.rfind('{', text.find("\"as\": \"mrA\""));
  text.insert(at,
              "{\"op\": \"reg_mr\", \"pd\": \"pdA\", \"as\": \"mrHuge\", \"addr\": "
              "\"0x100000000\", \"length\": 1099511627776, \"access\": [\"LOCAL_WRITE\"], "
              "\"expect_error\": \"INDEX_EXHAUSTED\"},\n");
  return text;
}

// Everything the committed vectors need, as Soft-RoCE offers it (MW, atomics, SRQ, ...).
inline DeviceCaps rxe_like_caps() {
  DeviceCaps c;
  c.name = "fake";
  c.max_mr_size = ~std::uint64_t{0};
  c.max_qp = 0x10000;
  c.max_qp_wr = 0x4000;
  c.max_sge = 32;
  c.max_cq = 0x10000;
  c.max_cqe = 0x8000;
  c.max_mr = 0x40000;
  c.max_pd = 0x10000;
  c.max_qp_rd_atom = 128;
  c.max_qp_init_rd_atom = 128;
  c.max_srq = 0x10000;
  c.max_srq_wr = 0x4000;
  c.max_srq_sge = 27;
  c.max_mw = 0x10000;
  c.atomic = true;
  c.mw_type1 = true;
  c.mw_type2 = true;
  c.mem_mgt_extensions = true;
  c.flush = true;
  c.atomic_write = true;
  c.active_mtu = qp::PathMtu::MTU_4096;
  return c;
}

// Host `n` (1 or 2): QPNs from 0x100 * n + 0x11, keys from 0x1000 * n, a RoCEv2 GID
// ::ffff:192.168.0.n at index 3 of port 1 (not the vector's 10.0.0.n at index 0).
inline FakeVerbs::Options fake_host(std::uint32_t n) {
  FakeVerbs::Options o;
  o.caps = rxe_like_caps();
  o.first_qpn = 0x100 * n + 0x11;
  o.key_base = 0x1000 * n;
  o.memory_base = 0x7f0000000000ull + 0x100000000ull * n;
  o.port.port_num = 1;
  o.port.gid_index = 3;
  o.port.gid[10] = 0xFF;
  o.port.gid[11] = 0xFF;
  o.port.gid[12] = 192;
  o.port.gid[13] = 168;
  o.port.gid[15] = static_cast<std::uint8_t>(n);
  return o;
}

}  // namespace rocecert::verbs::testing
