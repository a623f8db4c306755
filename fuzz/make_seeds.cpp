// Writes the seed corpus for fuzz_decode: one well-formed frame per opcode, IPv4 and IPv6,
// with and without a VLAN tag, each prefixed by the link-type selector byte (0 = Ethernet).
#include <cstdio>
#include <string>

#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  int n = 0;
  for (std::uint8_t op : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      const auto frame = encode(sample_frame(op, {ipv, ipv == 6, 13, 1}));
      const std::string path = std::string(argv[1]) + "/op" + std::to_string(op) + "_v" +
                               std::to_string(ipv);
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (!f) return 1;
      const unsigned char link = 0;
      std::fwrite(&link, 1, 1, f);
      std::fwrite(frame.data(), 1, frame.size(), f);
      std::fclose(f);
      ++n;
    }
  }
  std::printf("%d seeds\n", n);
  return 0;
}
