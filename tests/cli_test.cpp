// `rocecert decode` end to end: the binary is run as a user would run it, its output parsed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/sample_frames.h"
#include "support/command.h"

using namespace rocecert;
using nlohmann::json;

namespace {

using CliRun = rocecert::testing::CommandResult;
using rocecert::testing::slurp;

std::string temp_path(const std::string& name) {
  return rocecert::testing::temp_path("cli", name);
}

CliRun run_cli(const std::string& args) {
  return rocecert::testing::run_command(std::string(ROCECERT_CLI) + " " + args);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) v.push_back(l);
  return v;
}

std::string real(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

// The version the CLI prints is the project's (CMakeLists.txt project(VERSION)), typed nowhere
// else.
TEST(Cli, VersionIsTheProjectVersion) {
  const CliRun r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("rocecert ") + ROCECERT_PROJECT_VERSION + "\n");
}

TEST(CliDecode, TextSummaryOfARealCapture) {
  const CliRun r = run_cli("decode " + real("rc_ops_mtu4096.pcap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 35u);
  for (const auto& l : ls) EXPECT_NE(l.find("ICRC ok"), std::string::npos) << l;
  EXPECT_NE(ls[0].find("10.0.0.1 → 10.0.0.2 RC_SEND_ONLY QP=0x00002f PSN=256 A"), std::string::npos)
      << ls[0];
  EXPECT_NE(ls[1].find("RC_ACKNOWLEDGE QP=0x00002f PSN=256 ACK MSN=1"), std::string::npos) << ls[1];
}

TEST(CliDecode, JsonSchemaOnEveryRealCapture) {
  int icrc_failures = 0, frames = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real")) {
    if (e.path().extension() != ".pcap") continue;
    const CliRun r = run_cli("decode --json " + e.path().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::uint64_t expect_frame = 1;
    for (const auto& l : lines(r.out)) {
      const json j = json::parse(l);
      ++frames;
      EXPECT_EQ(j.at("frame").get<std::uint64_t>(), expect_frame++);
      for (const char* k : {"ts", "len", "payload_len", "icrc"})
        EXPECT_TRUE(j.at(k).is_number_integer()) << k << " in " << l;
      EXPECT_TRUE(j.at("roce").get<bool>());
      EXPECT_FALSE(j.contains("error")) << l;
      const json& ip = j.at("ip");
      for (const char* k : {"version", "dscp", "ecn", "ttl"})
        EXPECT_TRUE(ip.at(k).is_number_integer());
      EXPECT_TRUE(ip.at("src").is_string());
      EXPECT_TRUE(ip.at("dst").is_string());
      EXPECT_EQ(j.at("udp").at("dport").get<int>(), 4791);
      const json& bth = j.at("bth");
      for (const char* k :
           {"opcode", "se", "m", "padcnt", "tver", "pkey", "fecn", "becn", "dqpn", "ackreq", "psn"})
        EXPECT_TRUE(bth.at(k).is_number_integer()) << k;
      EXPECT_TRUE(bth.at("opcode_name").is_string());
      if (!j.at("icrc_ok").get<bool>()) ++icrc_failures;
    }
  }
  EXPECT_EQ(frames, 7146);      // sum of the packet counts in vectors/real/README.md
  EXPECT_EQ(icrc_failures, 1);  // rc_send_bw_64_mtu1024_corrupt2: the frame netem corrupted
}

TEST(CliDecode, JsonMatchesTheDecoderForEveryOpcode) {
  const std::string file = temp_path("ops.pcap");
  std::vector<std::vector<std::uint8_t>> frames;
  {
    pcap::Writer w(file);
    std::int64_t ts = 1'000'000'000;
    for (std::uint8_t op : wire::known_opcodes()) {
      frames.push_back(
          wire::encode(wire::sample_frame(op, {op % 2 ? 6u : 4u, op % 3 == 0, 33, op})));
      w.write(ts += 1000, frames.back());
    }
  }
  const CliRun r = run_cli("decode --json " + file);
  std::filesystem::remove(file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), frames.size());
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const json j = json::parse(ls[i]);
    const wire::ParsedFrame p = wire::decode(frames[i]);
    const std::string name(p.op->name);
    EXPECT_EQ(j["bth"]["opcode_name"], name);
    EXPECT_EQ(j["bth"]["psn"], p.bth.psn);
    EXPECT_EQ(j["bth"]["dqpn"], p.bth.dqpn);
    EXPECT_EQ(j["bth"]["pkey"], p.bth.pkey);
    EXPECT_EQ(j["bth"]["becn"], p.bth.becn ? 1 : 0);
    EXPECT_EQ(j["payload_len"], p.payload_len);
    EXPECT_EQ(j["icrc"], p.icrc);
    EXPECT_EQ(j["icrc_ok"], true);
    EXPECT_EQ(j.contains("reth"), p.has(wire::Header::Reth)) << name;
    EXPECT_EQ(j.contains("aeth"), p.has(wire::Header::Aeth)) << name;
    EXPECT_EQ(j.contains("atomiceth"), p.has(wire::Header::AtomicEth)) << name;
    EXPECT_EQ(j.contains("atomicacketh"), p.has(wire::Header::AtomicAckEth)) << name;
    EXPECT_EQ(j.contains("immdt"), p.has(wire::Header::ImmDt)) << name;
    EXPECT_EQ(j.contains("ieth"), p.has(wire::Header::Ieth)) << name;
    EXPECT_EQ(j.contains("deth"), p.has(wire::Header::Deth)) << name;
    EXPECT_EQ(j.contains("xrceth"), p.has(wire::Header::Xrceth)) << name;
    if (p.has(wire::Header::Reth)) {
      EXPECT_EQ(j["reth"]["va"], p.reth.va);
      EXPECT_EQ(j["reth"]["rkey"], p.reth.rkey);
      EXPECT_EQ(j["reth"]["dmalen"], p.reth.dmalen);
    }
    if (p.has(wire::Header::AtomicEth)) {
      EXPECT_EQ(j["atomiceth"]["swap_add"], p.atomiceth.swap_add);
      EXPECT_EQ(j["atomiceth"]["compare"], p.atomiceth.compare);
    }
    if (p.has(wire::Header::Aeth)) {
      EXPECT_EQ(j["aeth"]["syndrome"], p.aeth.syndrome);
    }
    if (p.has(wire::Header::ImmDt)) {
      EXPECT_EQ(j["immdt"], p.immdt.value);
    }
    if (p.has(wire::Header::Ieth)) {
      EXPECT_EQ(j["ieth"]["rkey"], p.ieth.rkey);
    }
    if (p.has(wire::Header::Deth)) {
      EXPECT_EQ(j["deth"]["qkey"], p.deth.qkey);
      EXPECT_EQ(j["deth"]["srcqp"], p.deth.srcqp);
    }
  }
}

TEST(CliDecode, MalformedFramesAreReportedAndDecodingGoesOn) {
  const std::string file = temp_path("bad_frames.pcap");
  {
    pcap::Writer w(file);
    auto good = wire::encode(wire::sample_frame(0x04, {4, false, 20, 1}));
    auto cut = good;
    cut.resize(40);  // ends inside the UDP header; IPv4 total length now lies
    auto unknown = good;
    unknown[42] = 0xE5;  // vendor-specific opcode
    auto arp = good;
    arp[12] = 0x08;
    arp[13] = 0x06;
    w.write(1000, good);
    w.write(2000, cut);
    w.write(3000, unknown);
    w.write(4000, arp);
    w.write(5000, good);
  }
  CliRun r = run_cli("decode --json " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 5u);
  EXPECT_FALSE(json::parse(ls[0]).contains("error"));
  const json cut = json::parse(ls[1]);
  EXPECT_EQ(cut["error"]["code"], "bad_ipv4_total_length");
  EXPECT_EQ(cut["error"]["offset"], 16);
  const json unknown = json::parse(ls[2]);
  EXPECT_EQ(unknown["error"]["code"], "unknown_opcode");
  EXPECT_EQ(unknown["error"]["offset"], 42);
  EXPECT_EQ(unknown["bth"]["opcode"], 0xE5);
  const json arp = json::parse(ls[3]);
  EXPECT_EQ(arp["roce"], false);
  EXPECT_FALSE(arp.contains("error"));
  EXPECT_FALSE(json::parse(ls[4]).contains("error"));

  r = run_cli("decode --strict " + file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.out).size(), 5u);
  EXPECT_NE(r.out.find("ERROR unknown_opcode at byte 42"), std::string::npos) << r.out;
  std::filesystem::remove(file);
}

TEST(CliDecode, UnusableCapturesExitTwoWithALocatedMessage) {
  CliRun r = run_cli("decode /nonexistent/x.pcap");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/x.pcap"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  const std::string empty = temp_path("empty.pcap");
  write_file(empty, "");
  r = run_cli("decode " + empty);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(empty), std::string::npos);
  EXPECT_NE(r.err.find("frame 0, byte offset 0"), std::string::npos) << r.err;
  std::filesystem::remove(empty);

  const std::string text = temp_path("notes.pcap");
  write_file(text, "this is not a capture file at all, just some text\n");
  r = run_cli("decode --json " + text);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  std::filesystem::remove(text);

  // A real capture cut inside its 5th record: 4 frames are reported, then the error.
  const std::string whole = slurp(real("rc_ops_mtu4096.pcap"));
  std::uint64_t fifth = 0;
  {
    pcap::Reader reader(real("rc_ops_mtu4096.pcap"));
    pcap::Record rec;
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(reader.next(rec));
    fifth = rec.file_offset;
  }
  const std::string cut = temp_path("cut.pcap");
  write_file(cut, whole.substr(0, fifth + 30));
  r = run_cli("decode --json " + cut);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.out).size(), 4u);
  EXPECT_NE(r.err.find(cut + ": frame 5, byte offset " + std::to_string(fifth)), std::string::npos)
      << r.err;
  std::filesystem::remove(cut);
}

TEST(CliDecode, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli("").exit_code, 2);
  EXPECT_EQ(run_cli("decode").exit_code, 2);
  EXPECT_EQ(run_cli("decode --bogus x.pcap").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("--help").exit_code, 0);
}
