// Keys, protection domains, access flags and the deterministic key-byte generator.
//
// Models IBTA Vol. 1 §10.6; docs/spec-notes.md §7.1 (key layout: 24-bit object index << 8 | 8-bit
// key byte; index 0 never valid; ibv_inc_rkey), §7.2 (enum ibv_access_flags, the optional range
// bits 20-29, the rule that REMOTE_WRITE / REMOTE_ATOMIC need LOCAL_WRITE) and §7.5 (PD identity).
// Values are the libibverbs ones so traces and DUT adapters can pass them through unchanged.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace rocecert::mem {

// An L_Key or R_Key (§7.1). One type for both: an MR's lkey equals its rkey (newer rxe) and
// LOCAL_INV / SEND_WITH_INV accept either.
class Key {
 public:
  constexpr Key() = default;
  constexpr explicit Key(std::uint32_t value) : value_(value) {}
  static constexpr Key make(std::uint32_t index, std::uint8_t key_byte) {
    return Key((index << 8) | key_byte);
  }
  constexpr std::uint32_t value() const { return value_; }
  constexpr std::uint32_t index() const { return value_ >> 8; }  // 24 bits: table entry
  constexpr std::uint8_t key_byte() const { return static_cast<std::uint8_t>(value_); }
  friend constexpr auto operator<=>(Key, Key) = default;

 private:
  std::uint32_t value_ = 0;
};

inline constexpr std::uint32_t kMaxKeyIndex = 0xFFFFFFu;

// ibv_inc_rkey: same index, key byte + 1 (mod 256) (§7.1; rdma-core verbs.h).
constexpr Key inc_rkey(Key k) {
  return Key::make(k.index(), static_cast<std::uint8_t>(k.key_byte() + 1u));
}

// Protection domain handle. 0 is never a valid PD.
struct Pd {
  std::uint32_t value = 0;
  friend constexpr auto operator<=>(Pd, Pd) = default;
};

// What the mem block needs to know about a QP: its number (type-2 MW association, §7.4) and
// its PD (§7.5). The qp block owns the QP itself.
struct QpRef {
  std::uint32_t qpn = 0;
  Pd pd{};
  friend constexpr bool operator==(QpRef, QpRef) = default;
};

// Stable handles: the table index, which survives re-registration and key changes.
struct MrId {
  std::uint32_t index = 0;
  friend constexpr auto operator<=>(MrId, MrId) = default;
};
struct MwId {
  std::uint32_t index = 0;
  friend constexpr auto operator<=>(MwId, MwId) = default;
};

// The access flags: the one list the Access enum, to_string(Access), the masks below and the
// scenario names (conformance/scenario/names.cpp) are derived from. X(NAME, bit): the flag is
// IBV_ACCESS_<NAME> = 1 << bit of enum ibv_access_flags in rdma-core libibverbs/verbs.h (the
// kernel's IB_ACCESS_* in include/rdma/ib_verbs.h has the same bits). RELAXED_ORDERING is
// IBV_ACCESS_OPTIONAL_FIRST, the first bit of the optional range.
#define ROCECERT_ACCESS_FLAGS(X) \
  X(LOCAL_WRITE, 0)              \
  X(REMOTE_WRITE, 1)             \
  X(REMOTE_READ, 2)              \
  X(REMOTE_ATOMIC, 3)            \
  X(MW_BIND, 4)                  \
  X(ZERO_BASED, 5)               \
  X(ON_DEMAND, 6)                \
  X(HUGETLB, 7)                  \
  X(FLUSH_GLOBAL, 8)             \
  X(FLUSH_PERSISTENT, 9)         \
  X(RELAXED_ORDERING, 20)

// enum ibv_access_flags, values as in libibverbs verbs.h.
enum class Access : std::uint32_t {
  NONE = 0,
#define ROCECERT_X(name, bit) name = 1u << (bit),
  ROCECERT_ACCESS_FLAGS(ROCECERT_X)
#undef ROCECERT_X
};

// One row of the list: the name scenarios and traces use, the flag, its bit in
// ibv_access_flags and the libibverbs spelling.
struct AccessFlagInfo {
  std::string_view name;  // "LOCAL_WRITE"
  Access flag;
  unsigned ibv_bit;
  std::string_view ibv_name;  // "IBV_ACCESS_LOCAL_WRITE"
};
inline constexpr AccessFlagInfo kAccessFlags[] = {
#define ROCECERT_X(name, bit) {#name, Access::name, bit, "IBV_ACCESS_" #name},
    ROCECERT_ACCESS_FLAGS(ROCECERT_X)
#undef ROCECERT_X
};

constexpr Access operator|(Access a, Access b) {
  return static_cast<Access>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
constexpr Access operator&(Access a, Access b) {
  return static_cast<Access>(static_cast<std::uint32_t>(a) & static_cast<std::uint32_t>(b));
}
constexpr Access operator~(Access a) {
  return static_cast<Access>(~static_cast<std::uint32_t>(a));
}
constexpr Access& operator|=(Access& a, Access b) {
  return a = a | b;
}
constexpr std::uint32_t to_u32(Access a) {
  return static_cast<std::uint32_t>(a);
}
constexpr Access access_from_u32(std::uint32_t v) {
  return static_cast<Access>(v);
}
constexpr bool any(Access a) {
  return to_u32(a) != 0;
}
// `set` grants every right in `required` (superset test, not "any of").
constexpr bool contains(Access set, Access required) {
  return (set & required) == required;
}

// IB_UVERBS_ACCESS_OPTIONAL_FIRST..LAST (include/uapi/rdma/ib_user_ioctl_verbs.h): bits 20-29.
// Best effort; never fail a registration.
inline constexpr unsigned kAccessOptionalFirstBit = 20;
inline constexpr unsigned kAccessOptionalLastBit = 29;
inline constexpr std::uint32_t kAccessOptionalMask =
    ((1u << (kAccessOptionalLastBit + 1)) - 1u) & ~((1u << kAccessOptionalFirstBit) - 1u);
// The defined non-optional bits (0-9): the flags of the list below the optional range.
// Anything outside this and the optional range is EINVAL (kernel ib_check_mr_access).
inline constexpr std::uint32_t kAccessDefinedMask = [] {
  std::uint32_t m = 0;
  for (const AccessFlagInfo& f : kAccessFlags)
    if (f.ibv_bit < kAccessOptionalFirstBit) m |= 1u << f.ibv_bit;
  return m;
}();
inline constexpr Access kRemoteRights =
    Access::REMOTE_READ | Access::REMOTE_WRITE | Access::REMOTE_ATOMIC;

// "LOCAL_WRITE|REMOTE_READ", "NONE", unknown bits as "0x...".
std::string to_string(Access a);

// Deterministic source of 8-bit key tags (§7.1: "random in newer rxe ... differs from the
// previous key of the same object"). The generator is splitmix64 (Steele, Lea, Flood 2014):
//   state += 0x9E3779B97F4A7C15;
//   z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//   z = (z ^ (z >> 27)) * 0x94D049BB133111EB; z ^= z >> 31;
// with the initial state equal to the seed. Each key byte is the top byte (bits 63:56) of one
// output; next_byte_avoiding(prev) draws again while the byte equals prev, as rxe's
// rxe_get_next_key loop does. Same seed and same call sequence give the same bytes.
class KeyGenerator {
 public:
  explicit KeyGenerator(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  std::uint8_t next_byte() { return static_cast<std::uint8_t>(next_u64() >> 56); }
  std::uint8_t next_byte_avoiding(std::uint8_t previous);

 private:
  std::uint64_t state_;
};

}  // namespace rocecert::mem
