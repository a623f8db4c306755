// Writes the seed corpus for fuzz_decode: one well-formed frame per opcode, IPv4 and IPv6,
// with and without a VLAN tag, each prefixed by the link-type selector byte (0 = Ethernet,
// 3 = raw IP), the same frames again as raw IP packets, and the inputs the target once failed
// on (each also a unit test in refmodel/wire/tests/fuzz_regression_test.cpp).
#include <cstdio>
#include <string>
#include <vector>

#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;

namespace {

constexpr unsigned char kLinkEthernet = 0;
constexpr unsigned char kLinkRawIp = 3;

// A raw-IP IPv6 frame carrying RC_SEND_MIDDLE with PadCnt 3 and a 13-byte payload: its spec
// re-encoded as an Ethernet frame whose EtherType said IPv4.
const std::vector<unsigned char> kRawIpv6SendMiddlePad3 = {
    0x6b, 0xf2, 0x04, 0x07, 0x00, 0x28, 0x11, 0xb5, 0xfd, 0x00, 0x4b, 0x81, 0xab, 0xff,
    0x82, 0x54, 0xfe, 0xb0, 0xc7, 0xab, 0xc0, 0x8d, 0x8f, 0xac, 0xfd, 0x00, 0xef, 0x81,
    0x53, 0x09, 0xae, 0xc2, 0x68, 0xda, 0xcb, 0x9f, 0x2f, 0xac, 0x22, 0x4a, 0xc5, 0xae,
    0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x01, 0x30, 0xb5, 0xbf, 0x00, 0x5e, 0x6a, 0x3c,
    0x00, 0x74, 0x93, 0xdf, 0x1d, 0xc1, 0x18, 0x56, 0xbd, 0xd1, 0x64, 0x8f, 0x3e, 0xda,
    0x25, 0x98, 0xd0, 0x00, 0x00, 0x00, 0x91, 0x67, 0x49, 0x52, 0x3a};

bool write_seed(const std::string& path, unsigned char link, const unsigned char* data,
                std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  const bool ok = std::fwrite(&link, 1, 1, f) == 1 && std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  int n = 0;
  for (std::uint8_t op : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      const bool vlan = ipv == 6;
      const auto frame = encode(sample_frame(op, {ipv, vlan, 13, 1}));
      const std::string name = "/op" + std::to_string(op) + "_v" + std::to_string(ipv);
      if (!write_seed(dir + name, kLinkEthernet, frame.data(), frame.size())) return 1;
      const std::size_t l2 = kEthLen + (vlan ? kVlanTagLen : 0);
      if (!write_seed(dir + name + "_raw", kLinkRawIp, frame.data() + l2, frame.size() - l2))
        return 1;
      n += 2;
    }
  }
  if (!write_seed(dir + "/regression_rawipv6_send_middle_pad3", kLinkRawIp,
                  kRawIpv6SendMiddlePad3.data(), kRawIpv6SendMiddlePad3.size()))
    return 1;
  ++n;
  std::printf("%d seeds\n", n);
  return 0;
}
