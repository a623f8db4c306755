// QP enumerations with their verbs values (rdma-core libibverbs/verbs.h, kernel ib_verbs.h):
// QP type, QP state, the modify_qp attribute mask bits and the path MTU (docs/spec-notes.md §6.1).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rocecert::qp {

// enum ibv_qp_type / ib_qp_type. The values are the verbs values, so XRC_SEND (9) and XRC_RECV
// (10) can be added later without renumbering; tables are indexed through qp_type_index().
enum class QpType : std::uint8_t { RC = 2, UC = 3, UD = 4 };
inline constexpr std::size_t kQpTypeCount = 3;
inline constexpr std::array<QpType, kQpTypeCount> kAllQpTypes = {QpType::RC, QpType::UC,
                                                                 QpType::UD};
constexpr std::size_t qp_type_index(QpType t) {
  return static_cast<std::size_t>(static_cast<std::uint8_t>(t) - 2u);
}

// enum ibv_qp_state (docs/spec-notes.md §6.1). IBV_QPS_UNKNOWN (7) is a query-only value and is not
// a state a QP can be in or be moved to; it is rejected as an invalid state value.
enum class QpState : std::uint8_t {
  RESET = 0,
  INIT = 1,
  RTR = 2,
  RTS = 3,
  SQD = 4,
  SQE = 5,
  ERR = 6
};
inline constexpr std::size_t kQpStateCount = 7;
inline constexpr std::array<QpState, kQpStateCount> kAllQpStates = {
    QpState::RESET, QpState::INIT, QpState::RTR, QpState::RTS,
    QpState::SQD,   QpState::SQE,  QpState::ERR};
constexpr std::size_t qp_state_index(QpState s) {
  return static_cast<std::size_t>(s);
}
// True for the seven states above; false for any other raw value (e.g. 7 = UNKNOWN).
constexpr bool is_valid_state(QpState s) {
  return static_cast<std::uint8_t>(s) <= 6u;
}

// enum ibv_qp_attr_mask (docs/spec-notes.md §6.1). Bits 21-24 are IB-only or vendor bits this model
// does not know; RATE_LIMIT is bit 25.
enum class AttrBit : std::uint32_t {
  STATE = 1u << 0,
  CUR_STATE = 1u << 1,
  EN_SQD_ASYNC_NOTIFY = 1u << 2,
  ACCESS_FLAGS = 1u << 3,
  PKEY_INDEX = 1u << 4,
  PORT = 1u << 5,
  QKEY = 1u << 6,
  AV = 1u << 7,
  PATH_MTU = 1u << 8,
  TIMEOUT = 1u << 9,
  RETRY_CNT = 1u << 10,
  RNR_RETRY = 1u << 11,
  RQ_PSN = 1u << 12,
  MAX_QP_RD_ATOMIC = 1u << 13,
  ALT_PATH = 1u << 14,
  MIN_RNR_TIMER = 1u << 15,
  SQ_PSN = 1u << 16,
  MAX_DEST_RD_ATOMIC = 1u << 17,
  PATH_MIG_STATE = 1u << 18,
  CAP = 1u << 19,
  DEST_QPN = 1u << 20,
  RATE_LIMIT = 1u << 25,
};
inline constexpr std::size_t kAttrBitCount = 22;
inline constexpr std::array<AttrBit, kAttrBitCount> kAllAttrBits = {AttrBit::STATE,
                                                                    AttrBit::CUR_STATE,
                                                                    AttrBit::EN_SQD_ASYNC_NOTIFY,
                                                                    AttrBit::ACCESS_FLAGS,
                                                                    AttrBit::PKEY_INDEX,
                                                                    AttrBit::PORT,
                                                                    AttrBit::QKEY,
                                                                    AttrBit::AV,
                                                                    AttrBit::PATH_MTU,
                                                                    AttrBit::TIMEOUT,
                                                                    AttrBit::RETRY_CNT,
                                                                    AttrBit::RNR_RETRY,
                                                                    AttrBit::RQ_PSN,
                                                                    AttrBit::MAX_QP_RD_ATOMIC,
                                                                    AttrBit::ALT_PATH,
                                                                    AttrBit::MIN_RNR_TIMER,
                                                                    AttrBit::SQ_PSN,
                                                                    AttrBit::MAX_DEST_RD_ATOMIC,
                                                                    AttrBit::PATH_MIG_STATE,
                                                                    AttrBit::CAP,
                                                                    AttrBit::DEST_QPN,
                                                                    AttrBit::RATE_LIMIT};

// A set of AttrBit, with the ibv_qp_attr_mask encoding. Any 32-bit value can be held, including
// bits no AttrBit names: the checks report those as unexpected bits.
class AttrMask {
 public:
  constexpr AttrMask() = default;
  constexpr AttrMask(AttrBit b) : bits_(static_cast<std::uint32_t>(b)) {}  // NOLINT: implicit
  static constexpr AttrMask from_raw(std::uint32_t raw) {
    AttrMask m;
    m.bits_ = raw;
    return m;
  }
  constexpr std::uint32_t raw() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool has(AttrBit b) const { return (bits_ & static_cast<std::uint32_t>(b)) != 0; }
  constexpr bool contains(AttrMask other) const { return (bits_ & other.bits_) == other.bits_; }

  friend constexpr AttrMask operator|(AttrMask a, AttrMask b) {
    return from_raw(a.bits_ | b.bits_);
  }
  friend constexpr AttrMask operator&(AttrMask a, AttrMask b) {
    return from_raw(a.bits_ & b.bits_);
  }
  // Set difference a \ b.
  friend constexpr AttrMask operator-(AttrMask a, AttrMask b) {
    return from_raw(a.bits_ & ~b.bits_);
  }
  constexpr AttrMask& operator|=(AttrMask o) { return *this = *this | o; }
  friend constexpr bool operator==(AttrMask, AttrMask) = default;

 private:
  std::uint32_t bits_ = 0;
};
constexpr AttrMask operator|(AttrBit a, AttrBit b) {
  return AttrMask(a) | AttrMask(b);
}
// Every bit this model names (bits 0-20 and 25): ibv's IB_QP_ATTR_STANDARD_BITS plus RATE_LIMIT.
inline constexpr AttrMask kKnownAttrBits = AttrMask::from_raw(0x1FFFFFu | (1u << 25));

// enum ibv_mtu: the path MTU code carried in modify_qp (PATH_MTU). Other raw values are invalid.
enum class PathMtu : std::uint8_t {
  MTU_256 = 1,
  MTU_512 = 2,
  MTU_1024 = 3,
  MTU_2048 = 4,
  MTU_4096 = 5
};
constexpr bool is_valid_path_mtu(PathMtu m) {
  const auto v = static_cast<std::uint8_t>(m);
  return v >= 1u && v <= 5u;
}
// 256 << (code - 1) bytes; 0 for an invalid code.
constexpr std::uint32_t mtu_bytes(PathMtu m) {
  return is_valid_path_mtu(m) ? 128u << static_cast<std::uint8_t>(m) : 0u;
}
// The PathMtu whose size is exactly `bytes`; false if there is none.
constexpr bool path_mtu_from_bytes(std::uint32_t bytes, PathMtu& out) {
  for (std::uint8_t code = 1; code <= 5; ++code) {
    if ((128u << code) == bytes) {
      out = static_cast<PathMtu>(code);
      return true;
    }
  }
  return false;
}

std::string_view to_string(QpType t);
std::string_view to_string(QpState s);  // "RESET" ... "ERR"; any other raw value gives "?"
std::string_view to_string(AttrBit b);  // "STATE", "CUR_STATE", ... as ibv names them
std::string_view to_string(PathMtu m);  // "256" ... "4096"; "?" for an invalid code
// "ACCESS_FLAGS|PKEY_INDEX|PORT" (bit order); unnamed bits as "BIT21"; "-" for the empty set.
std::string to_string(AttrMask m);

}  // namespace rocecert::qp
