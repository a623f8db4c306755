// Access-flag names and the splitmix64 key-byte generator (keys.h, IBTA Vol. 1 §10.6;
// docs/spec-notes.md §7.1-7.2).
#include "rocecert/mem/keys.h"

#include <array>
#include <cstdio>
#include <string_view>

namespace rocecert::mem {

std::string to_string(Access a) {
  if (!any(a)) return "NONE";
  std::string out;
  std::uint32_t rest = to_u32(a);
  for (const AccessFlagInfo& f : kAccessFlags) {
    if (contains(a, f.flag)) {
      if (!out.empty()) out += '|';
      out += f.name;
      rest &= ~to_u32(f.flag);
    }
  }
  if (rest != 0) {
    std::array<char, 16> buf{};
    std::snprintf(buf.data(), buf.size(), "0x%x", rest);
    if (!out.empty()) out += '|';
    out += buf.data();
  }
  return out;
}

std::uint64_t KeyGenerator::next_u64() {
  state_ += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint8_t KeyGenerator::next_byte_avoiding(std::uint8_t previous) {
  std::uint8_t b = next_byte();
  while (b == previous) b = next_byte();  // rxe_get_next_key
  return b;
}

}  // namespace rocecert::mem
