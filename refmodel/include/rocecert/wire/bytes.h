// Big-endian field access over byte spans. Every wire header is read and written through these
// helpers with explicit offsets and widths: no overlay structs, no bitfields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rocecert::wire {

using ByteSpan = std::span<const std::uint8_t>;
using MutableByteSpan = std::span<std::uint8_t>;

// Unchecked reads: the caller has already proven that [off, off + width) lies inside `b`.
inline std::uint8_t load_u8(ByteSpan b, std::size_t off) {
  return b[off];
}
inline std::uint16_t load_be16(ByteSpan b, std::size_t off) {
  return static_cast<std::uint16_t>((b[off] << 8) | b[off + 1]);
}
inline std::uint32_t load_be24(ByteSpan b, std::size_t off) {
  return (std::uint32_t{b[off]} << 16) | (std::uint32_t{b[off + 1]} << 8) | b[off + 2];
}
inline std::uint32_t load_be32(ByteSpan b, std::size_t off) {
  return (std::uint32_t{b[off]} << 24) | (std::uint32_t{b[off + 1]} << 16) |
         (std::uint32_t{b[off + 2]} << 8) | b[off + 3];
}
inline std::uint64_t load_be64(ByteSpan b, std::size_t off) {
  return (std::uint64_t{load_be32(b, off)} << 32) | load_be32(b, off + 4);
}
inline std::uint32_t load_le32(ByteSpan b, std::size_t off) {
  return std::uint32_t{b[off]} | (std::uint32_t{b[off + 1]} << 8) |
         (std::uint32_t{b[off + 2]} << 16) | (std::uint32_t{b[off + 3]} << 24);
}

inline void store_u8(MutableByteSpan b, std::size_t off, std::uint32_t v) {
  b[off] = static_cast<std::uint8_t>(v);
}
inline void store_be16(MutableByteSpan b, std::size_t off, std::uint32_t v) {
  b[off] = static_cast<std::uint8_t>(v >> 8);
  b[off + 1] = static_cast<std::uint8_t>(v);
}
inline void store_be24(MutableByteSpan b, std::size_t off, std::uint32_t v) {
  b[off] = static_cast<std::uint8_t>(v >> 16);
  b[off + 1] = static_cast<std::uint8_t>(v >> 8);
  b[off + 2] = static_cast<std::uint8_t>(v);
}
inline void store_be32(MutableByteSpan b, std::size_t off, std::uint32_t v) {
  store_be16(b, off, v >> 16);
  store_be16(b, off + 2, v & 0xFFFFu);
}
inline void store_be64(MutableByteSpan b, std::size_t off, std::uint64_t v) {
  store_be32(b, off, static_cast<std::uint32_t>(v >> 32));
  store_be32(b, off + 4, static_cast<std::uint32_t>(v));
}
inline void store_le32(MutableByteSpan b, std::size_t off, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace rocecert::wire
