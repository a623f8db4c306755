// Wireshark's tshark as an independent oracle: for a generated capture holding every opcode
// (IPv4 and IPv6, with and without 802.1Q) and for every real capture in vectors/real/, every
// field tshark decodes must equal ours, frame by frame. Where tshark 4.0 cannot decode the
// extended headers (tshark_cannot_decode_headers says which and why), those are counted, not
// compared; their IP, UDP and BTH fields still are.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/sample_frames.h"
#include "support/require_tool.h"

using namespace rocecert;
using wire::Header;
using wire::ParsedFrame;

namespace {

// What one field of ours is, as text in tshark's own format, or nullopt when the frame does
// not carry it.
using Extract = std::function<std::optional<std::string>(const ParsedFrame&, const pcap::Record&)>;

struct Field {
  const char* tshark;
  Extract ours;
};

std::string dec(std::uint64_t v) {
  return std::to_string(v);
}
std::string hex_bytes(std::uint32_t v) {  // tshark prints FT_BYTES as plain hex
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}
std::string hex_n(std::uint64_t v, int width) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return b;
}
std::string mac(const wire::MacAddr& m) {
  char b[20];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}
std::string ip_text(const ParsedFrame& p, bool src) {
  char text[64] = {};
  const auto& a = src ? p.ip.src : p.ip.dst;
  inet_ntop(p.ip.version == 6 ? AF_INET6 : AF_INET, a.data(), text, sizeof text);
  return text;
}

template <typename F>
Extract when(Header h, F f) {
  return [h, f](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
    if (!p.has(h)) return std::nullopt;
    return f(p);
  };
}
template <typename F>
Extract if_v(unsigned version, F f) {
  return [version, f](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
    if (!p.has_ip || p.ip.version != version) return std::nullopt;
    return f(p);
  };
}
template <typename F>
Extract bth(F f) {
  return [f](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
    return f(p.bth);
  };
}

const std::vector<Field>& fields() {
  static const std::vector<Field> kFields = {
      {"frame.len",
       [](const ParsedFrame&, const pcap::Record& r) -> std::optional<std::string> {
         return dec(r.len);
       }},
      {"eth.src",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         return mac(p.eth.src);
       }},
      {"eth.dst",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         return mac(p.eth.dst);
       }},
      {"vlan.id",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         if (!p.eth.has_vlan) return std::nullopt;
         return dec(p.eth.vlan.vid);
       }},
      {"vlan.priority",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         if (!p.eth.has_vlan) return std::nullopt;
         return dec(p.eth.vlan.pcp);
       }},
      {"ip.src", if_v(4, [](const ParsedFrame& p) { return ip_text(p, true); })},
      {"ip.dst", if_v(4, [](const ParsedFrame& p) { return ip_text(p, false); })},
      {"ip.dsfield.dscp", if_v(4, [](const ParsedFrame& p) { return dec(p.ip.dscp); })},
      {"ip.dsfield.ecn", if_v(4, [](const ParsedFrame& p) { return dec(p.ip.ecn); })},
      {"ip.ttl", if_v(4, [](const ParsedFrame& p) { return dec(p.ip.ttl); })},
      {"ip.len", if_v(4, [](const ParsedFrame& p) { return dec(p.ip.total_length); })},
      {"ip.id", if_v(4, [](const ParsedFrame& p) { return hex_n(p.ip.id, 4); })},
      {"ipv6.src", if_v(6, [](const ParsedFrame& p) { return ip_text(p, true); })},
      {"ipv6.dst", if_v(6, [](const ParsedFrame& p) { return ip_text(p, false); })},
      {"ipv6.tclass.dscp", if_v(6, [](const ParsedFrame& p) { return dec(p.ip.dscp); })},
      {"ipv6.tclass.ecn", if_v(6, [](const ParsedFrame& p) { return dec(p.ip.ecn); })},
      {"ipv6.hlim", if_v(6, [](const ParsedFrame& p) { return dec(p.ip.ttl); })},
      {"ipv6.flow", if_v(6, [](const ParsedFrame& p) { return hex_n(p.ip.flow_label, 6); })},
      {"ipv6.plen", if_v(6, [](const ParsedFrame& p) { return dec(p.ip.total_length); })},
      {"udp.srcport",
       [](const ParsedFrame& p,
          const pcap::Record&) -> std::optional<std::string> { return dec(p.udp.sport); }},
      {"udp.dstport",
       [](const ParsedFrame& p,
          const pcap::Record&) -> std::optional<std::string> { return dec(p.udp.dport); }},
      {"udp.length",
       [](const ParsedFrame& p,
          const pcap::Record&) -> std::optional<std::string> { return dec(p.udp.length); }},
      {"infiniband.bth.opcode", bth([](const wire::Bth& b) { return dec(b.opcode); })},
      {"infiniband.bth.se", bth([](const wire::Bth& b) { return dec(b.se); })},
      {"infiniband.bth.m", bth([](const wire::Bth& b) { return dec(b.m); })},
      {"infiniband.bth.padcnt", bth([](const wire::Bth& b) { return dec(b.padcnt); })},
      {"infiniband.bth.tver", bth([](const wire::Bth& b) { return dec(b.tver); })},
      {"infiniband.bth.p_key", bth([](const wire::Bth& b) { return dec(b.pkey); })},
      {"infiniband.bth.destqp", bth([](const wire::Bth& b) { return hex_n(b.dqpn, 6); })},
      {"infiniband.bth.a", bth([](const wire::Bth& b) { return dec(b.ackreq); })},
      {"infiniband.bth.reserved7", bth([](const wire::Bth& b) { return dec(b.resv7); })},
      {"infiniband.bth.psn", bth([](const wire::Bth& b) { return dec(b.psn); })},
      {"infiniband.rdeth.eecnxt",
       when(Header::Rdeth, [](const ParsedFrame& p) { return dec(p.rdeth.eecnxt); })},
      {"infiniband.deth.q_key",
       when(Header::Deth, [](const ParsedFrame& p) { return hex_n(p.deth.qkey, 16); })},
      {"infiniband.deth.srcqp",
       when(Header::Deth, [](const ParsedFrame& p) { return hex_n(p.deth.srcqp, 8); })},
      // tshark shows the AtomicETH's VA and R_Key under the RETH field names.
      {"infiniband.reth.va",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         if (p.has(Header::Reth)) return hex_n(p.reth.va, 16);
         if (p.has(Header::AtomicEth)) return hex_n(p.atomiceth.va, 16);
         return std::nullopt;
       }},
      {"infiniband.reth.r_key",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         if (p.has(Header::Reth)) return hex_n(p.reth.rkey, 8);
         if (p.has(Header::AtomicEth)) return hex_n(p.atomiceth.rkey, 8);
         return std::nullopt;
       }},
      {"infiniband.reth.dmalen",
       when(Header::Reth, [](const ParsedFrame& p) { return dec(p.reth.dmalen); })},
      {"infiniband.atomiceth.swapdt",
       when(Header::AtomicEth, [](const ParsedFrame& p) { return dec(p.atomiceth.swap_add); })},
      {"infiniband.atomiceth.cmpdt",
       when(Header::AtomicEth, [](const ParsedFrame& p) { return dec(p.atomiceth.compare); })},
      {"infiniband.aeth.syndrome",
       when(Header::Aeth, [](const ParsedFrame& p) { return dec(p.aeth.syndrome); })},
      {"infiniband.aeth.msn",
       when(Header::Aeth, [](const ParsedFrame& p) { return dec(p.aeth.msn); })},
      {"infiniband.atomicacketh.origremdt",
       when(Header::AtomicAckEth, [](const ParsedFrame& p) { return dec(p.atomicacketh.orig); })},
      {"infiniband.immdt",
       when(Header::ImmDt, [](const ParsedFrame& p) { return hex_bytes(p.immdt.value); })},
      {"infiniband.ieth",
       when(Header::Ieth, [](const ParsedFrame& p) { return hex_bytes(p.ieth.rkey); })},
      {"infiniband.invariant.crc",
       [](const ParsedFrame& p, const pcap::Record&) -> std::optional<std::string> {
         if (!p.has_icrc) return std::nullopt;
         return hex_n(__builtin_bswap32(p.icrc), 8);
       }},
  };
  return kFields;
}

// Opcodes whose extended headers tshark 4.0's InfiniBand dissector does not decode, so that only
// their IP, UDP and BTH fields can be compared:
//  - CNP (0x81): tshark says "Unknown (129)" and stops after the BTH;
//  - the XRC family (0xA0-0xB7) and the IBA 1.5 FLUSH / ATOMIC WRITE (0x1C, 0x1D, 0x5C, 0x5D):
//    not in tshark 4.0's opcode tables;
//  - RD (0x40-0x5D): over RoCEv2 tshark 4.0 starts the RD extended headers 8 bytes after the
//    end of the BTH (it shows RDETH at BTH+20 and reads an RD ACK's AETH out of the ICRC
//    bytes). Our RD layout (BTH, RDETH, DETH, ...) is IBA §9.3 / rxe_opcode.c and is pinned by
//    OpcodeTable.HeaderLengthsMatchTheSpec. RoCE never carries RD.
bool tshark_cannot_decode_headers(std::uint8_t opcode) {
  return opcode == 0x81 || opcode >= 0xA0 || opcode == 0x1C || opcode == 0x1D ||
         (opcode >= 0x40 && opcode <= 0x5F);
}

std::vector<std::vector<std::string>> run_tshark(const std::string& pcap) {
  // Payload heuristics off: they claim some payloads (RPC-over-RDMA, Mellanox EoIB, ...) and
  // then call the frame malformed, which hides the ICRC field. We compare the transport only.
  std::string cmd = "tshark -n -r '" + pcap + "' -T fields -E separator=/t -E occurrence=f";
  for (const char* proto : {"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
                            "infiniband.eoib", "infiniband_sdp", "fcoib"})
    cmd += std::string(" --disable-protocol ") + proto;
  for (const Field& f : fields()) cmd += std::string(" -e ") + f.tshark;
  cmd += " 2>/dev/null";
  std::vector<std::vector<std::string>> rows;
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return rows;
  std::string line;
  char buf[65536];
  while (std::fgets(buf, sizeof buf, pipe)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    cols.resize(fields().size());
    rows.push_back(std::move(cols));
    line.clear();
  }
  EXPECT_EQ(pclose(pipe), 0) << cmd;
  return rows;
}

bool have_tshark() {
  return rocecert::testing::tool_on_path("tshark") &&
         rocecert::testing::command_succeeds("tshark --version");
}

struct Tally {
  std::uint64_t compared = 0;
  std::uint64_t blind = 0;
};

// Compares every frame of `pcap` with tshark's view of it: what was compared, frame by frame.
// `where(i, frame)` names frame i (0-based) in failure messages; by default the file and the
// frame number.
using Where = std::function<std::string(std::size_t, std::uint64_t)>;
std::vector<Tally> compare_frames_with_tshark(const std::string& pcap, const Where& where = {}) {
  std::vector<Tally> tallies;
  const auto rows = run_tshark(pcap);
  pcap::Reader reader(pcap);
  pcap::Record rec;
  std::size_t i = 0;
  while (reader.next(rec)) {
    const std::string at =
        where ? where(i, rec.frame) : pcap + " frame " + std::to_string(rec.frame);
    const ParsedFrame p = wire::decode(rec.data, {reader.link(), true});
    EXPECT_FALSE(p.has_error) << at;
    if (i >= rows.size()) {
      ADD_FAILURE() << pcap << ": tshark printed " << rows.size() << " rows";
      return tallies;
    }
    Tally& t = tallies.emplace_back();
    const auto& row = rows[i++];
    for (std::size_t k = 0; k < fields().size(); ++k) {
      const Field& f = fields()[k];
      const std::optional<std::string> ours = f.ours(p, rec);
      std::string theirs = row[k];
      if (theirs == "True") theirs = "1";
      if (theirs == "False") theirs = "0";
      if (!ours && theirs.empty()) continue;
      if (p.has_bth && tshark_cannot_decode_headers(p.bth.opcode) &&
          std::string(f.tshark).rfind("infiniband.", 0) == 0 &&
          std::string(f.tshark).rfind("infiniband.bth", 0) != 0) {
        ++t.blind;
        continue;
      }
      ++t.compared;
      EXPECT_EQ(ours.value_or("<absent>"), theirs.empty() ? "<absent>" : theirs)
          << at << " (" << (p.op ? p.op->name : "?") << ") field " << f.tshark;
    }
  }
  EXPECT_EQ(i, rows.size()) << pcap;
  return tallies;
}

Tally compare_with_tshark(const std::string& pcap) {
  Tally sum;
  for (const Tally& t : compare_frames_with_tshark(pcap)) {
    sum.compared += t.compared;
    sum.blind += t.blind;
  }
  return sum;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rocecert-oracle-" + std::to_string(getpid()) + "-" + name))
      .string();
}

}  // namespace

namespace {

void needs(bool available) {
  ROCECERT_REQUIRE_TOOL(available, "no-such-tool");
}

// What needs(available) records with the environment variable CI set to `ci` (nullptr: unset).
std::vector<::testing::TestPartResult::Type> outcome(bool available, const char* ci) {
  const char* saved = std::getenv("CI");
  const std::string keep = saved ? saved : "";
  if (ci) {
    ::setenv("CI", ci, 1);
  } else {
    ::unsetenv("CI");
  }
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    needs(available);
  }
  if (saved) {
    ::setenv("CI", keep.c_str(), 1);
  } else {
    ::unsetenv("CI");
  }
  std::vector<::testing::TestPartResult::Type> v;
  for (int i = 0; i < results.size(); ++i) v.push_back(results.GetTestPartResult(i).type());
  return v;
}

}  // namespace

// The rule of tests/support/require_tool.h, which the tool-dependent tests of the tree use:
// a missing tool fails the test in CI and skips it elsewhere.
TEST(RequireTool, AMissingToolFailsInCiAndSkipsElsewhere) {
  using Type = ::testing::TestPartResult::Type;
  EXPECT_EQ(outcome(false, "true"), std::vector<Type>{Type::kFatalFailure});
  EXPECT_EQ(outcome(false, "1"), std::vector<Type>{Type::kFatalFailure});
  EXPECT_EQ(outcome(false, nullptr), std::vector<Type>{Type::kSkip});
  EXPECT_EQ(outcome(false, "false"), std::vector<Type>{Type::kSkip});
  EXPECT_TRUE(outcome(true, "true").empty());
  EXPECT_TRUE(outcome(true, nullptr).empty());
  EXPECT_TRUE(rocecert::testing::tool_on_path("sh"));
  EXPECT_FALSE(rocecert::testing::tool_on_path("rocecert-no-such-tool"));
}

TEST(TsharkOracle, EveryOpcodeIpv4Ipv6Vlan) {
  ROCECERT_REQUIRE_TOOL(have_tshark(), "tshark");
  const std::string file = temp_path("all_opcodes.pcap");
  std::size_t written = 0;
  {
    pcap::Writer w(file);
    std::int64_t ts = 1'700'000'000'000'000'000;
    for (std::uint8_t op : wire::known_opcodes()) {
      for (unsigned ipv : {4u, 6u}) {
        for (bool vlan : {false, true}) {
          for (std::uint32_t len : {0u, 5u, 256u}) {
            const auto frame =
                wire::encode(wire::sample_frame(op, {ipv, vlan, len, 100u + op + len}));
            w.write(ts, frame);
            ts += 1000;
            ++written;
          }
        }
      }
    }
  }
  const Tally t = compare_with_tshark(file);
  std::filesystem::remove(file);
  EXPECT_GT(t.compared, written * 20);
  // Every blind field belongs to a frame of an opcode tshark does not decode.
  RecordProperty("fields_compared", static_cast<int>(t.compared));
  RecordProperty("fields_tshark_cannot_decode", static_cast<int>(t.blind));
}

class TsharkRealCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(TsharkRealCapture, AgreesOnEveryField) {
  ROCECERT_REQUIRE_TOOL(have_tshark(), "tshark");
  const Tally t =
      compare_with_tshark(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + GetParam());
  EXPECT_GT(t.compared, 0u);
  EXPECT_EQ(t.blind, 0u);  // rxe sends nothing tshark cannot decode
}

namespace {
std::vector<std::string> real_captures() {
  std::vector<std::string> names;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real"))
    if (e.path().extension() == ".pcap") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

std::string capture_test_name(const ::testing::TestParamInfo<std::string>& param_info) {
  return param_info.param.substr(0, param_info.param.find('.'));
}

INSTANTIATE_TEST_SUITE_P(Soft_RoCE, TsharkRealCapture, ::testing::ValuesIn(real_captures()),
                         capture_test_name);

// The expected frames of every committed test vector (vectors/<area>/*.pcap, written by the
// model): tshark reads the same fields in them, except the extended headers it cannot decode
// (FLUSH and ATOMIC WRITE in tshark 4.0), which are counted. tshark takes about a second to
// start, longer than it takes to read a vector, so the vectors of an area are read by one
// tshark: their frames are written one file after the other into one capture, and a failure
// names the vector and its frame. Should tshark decode a frame differently after another
// vector's frames, a field would differ and the test would say where. The real captures above
// are still read one file each.
class TsharkVectorArea : public ::testing::TestWithParam<std::string> {};

TEST_P(TsharkVectorArea, AgreesOnEveryField) {
  ROCECERT_REQUIRE_TOOL(have_tshark(), "tshark");
  const std::filesystem::path area =
      std::filesystem::path(ROCECERT_SOURCE_DIR) / "vectors" / GetParam();
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(area))
    if (e.path().extension() == ".pcap") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << area;

  // One capture for each link type the area's files have (all Ethernet today), and where each
  // of its frames came from.
  struct Origin {
    std::size_t file;
    std::uint64_t frame;
  };
  struct Combined {
    std::string path;
    pcap::Writer writer;
    std::vector<Origin> from;
  };
  std::map<int, Combined> by_link;
  std::vector<std::size_t> frames(files.size(), 0);
  for (std::size_t f = 0; f < files.size(); ++f) {
    pcap::Reader r((area / files[f]).string());
    const int link = r.linktype();
    auto c = by_link.find(link);
    if (c == by_link.end()) {
      const std::string path = temp_path("vectors-" + std::to_string(link) + ".pcap");
      c = by_link.emplace(link, Combined{path, pcap::Writer(path, link), {}}).first;
    }
    for (pcap::Record rec; r.next(rec);) {
      c->second.writer.write(rec.ts_ns, rec.data, rec.len);
      c->second.from.push_back({f, rec.frame});
      ++frames[f];
    }
  }

  std::vector<Tally> per_file(files.size());
  for (auto& [link, c] : by_link) {
    c.writer.close();
    const std::vector<Origin>& from = c.from;  // a lambda cannot capture a structured binding
    const auto where = [&](std::size_t i, std::uint64_t) {
      return GetParam() + "/" + files[from[i].file] + " frame " + std::to_string(from[i].frame);
    };
    const auto tallies = compare_frames_with_tshark(c.path, where);
    std::filesystem::remove(c.path);
    for (std::size_t i = 0; i < tallies.size(); ++i) {
      per_file[from[i].file].compared += tallies[i].compared;
      per_file[from[i].file].blind += tallies[i].blind;
    }
  }
  for (std::size_t f = 0; f < files.size(); ++f) {
    // A vector of verbs alone has no frames: nothing for tshark to read.
    if (frames[f] > 0) {
      EXPECT_GT(per_file[f].compared, 0u) << GetParam() << "/" << files[f];
    }
  }
}

namespace {
std::vector<std::string> vector_areas() {
  const std::filesystem::path root = std::string(ROCECERT_SOURCE_DIR) + "/vectors";
  std::set<std::string> areas;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    const std::string rel = std::filesystem::relative(e.path(), root).string();
    if (e.path().extension() == ".pcap" && rel.rfind("real/", 0) != 0)
      areas.insert(std::filesystem::path(rel).parent_path().string());
  }
  return {areas.begin(), areas.end()};
}
std::string area_test_name(const ::testing::TestParamInfo<std::string>& param_info) {
  std::string n = param_info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(Vectors, TsharkVectorArea, ::testing::ValuesIn(vector_areas()),
                         area_test_name);
