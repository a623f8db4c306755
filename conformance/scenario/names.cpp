#include "names.h"

#include <vector>

namespace rocecert::conformance::names {

using json_input::EnumName;

Table<qp::QpType> qp_types() {
  static const std::vector<EnumName<qp::QpType>> t = [] {
    std::vector<EnumName<qp::QpType>> v;
    for (qp::QpType x : qp::kAllQpTypes) v.push_back({qp::to_string(x), x});
    return v;
  }();
  return t;
}

Table<qp::QpState> qp_states() {
  static const std::vector<EnumName<qp::QpState>> t = [] {
    std::vector<EnumName<qp::QpState>> v;
    for (qp::QpState x : qp::kAllQpStates) v.push_back({qp::to_string(x), x});
    return v;
  }();
  return t;
}

Table<qp::AttrBit> attr_bits() {
  static const std::vector<EnumName<qp::AttrBit>> t = [] {
    std::vector<EnumName<qp::AttrBit>> v;
    for (qp::AttrBit x : qp::kAllAttrBits) v.push_back({qp::to_string(x), x});
    return v;
  }();
  return t;
}

Table<qp::PathMigState> path_mig_states() {
  static constexpr EnumName<qp::PathMigState> t[] = {
      {"MIGRATED", qp::PathMigState::MIGRATED},
      {"REARM", qp::PathMigState::REARM},
      {"ARMED", qp::PathMigState::ARMED},
  };
  return t;
}

Table<mem::Access> access_flags() {
  static const std::vector<EnumName<mem::Access>> t = [] {
    std::vector<EnumName<mem::Access>> v;
    for (const mem::AccessFlagInfo& f : mem::kAccessFlags) v.push_back({f.name, f.flag});
    return v;
  }();
  return t;
}

Table<tx::WrOpcode> wr_opcodes() {
  static const std::vector<EnumName<tx::WrOpcode>> t = [] {
    std::vector<EnumName<tx::WrOpcode>> v;
    for (std::uint8_t raw = 0; raw < 32; ++raw) {
      const auto op = static_cast<tx::WrOpcode>(raw);
      const std::string_view name = tx::to_string(op);
      if (name != "?") v.push_back({name, op});
    }
    return v;
  }();
  return t;
}

Table<tx::SendFlag> send_flags() {
  static constexpr EnumName<tx::SendFlag> t[] = {
      {"FENCE", tx::kSendFence},
      {"SIGNALED", tx::kSendSignaled},
      {"SOLICITED", tx::kSendSolicited},
      {"INLINE", tx::kSendInline},
  };
  return t;
}

Table<cq::WcStatus> wc_statuses() {
  static constexpr EnumName<cq::WcStatus> t[] = {
#define ROCECERT_X(name, value) {#name, cq::WcStatus::name},
      ROCECERT_WC_STATUSES(ROCECERT_X)
#undef ROCECERT_X
  };
  return t;
}

Table<cq::WcOpcode> wc_opcodes() {
  static const std::vector<EnumName<cq::WcOpcode>> t = [] {
    std::vector<EnumName<cq::WcOpcode>> v;
    for (unsigned raw = 0; raw < 256; ++raw) {
      const auto op = static_cast<cq::WcOpcode>(raw);
      const std::string_view name = cq::to_string(op);
      if (!name.empty() && name != "?") v.push_back({name, op});
    }
    return v;
  }();
  return t;
}

Table<cq::WcFlag> wc_flags() {
  static constexpr EnumName<cq::WcFlag> t[] = {
      {"GRH", cq::kWcGrh},
      {"WITH_IMM", cq::kWcWithImm},
      {"IP_CSUM_OK", cq::kWcIpCsumOk},
      {"WITH_INV", cq::kWcWithInv},
  };
  return t;
}

Table<qp::ModifyError> modify_errors() {
  static const std::vector<EnumName<qp::ModifyError>> t = [] {
    std::vector<EnumName<qp::ModifyError>> v;
    for (unsigned raw = 0; raw <= static_cast<unsigned>(qp::ModifyError::QPN_EXHAUSTED); ++raw) {
      const auto e = static_cast<qp::ModifyError>(raw);
      v.push_back({qp::to_string(e), e});
    }
    return v;
  }();
  return t;
}

Table<mem::MemErrc> mem_errors() {
  static constexpr EnumName<mem::MemErrc> t[] = {
#define ROCECERT_X(name, errno_name, text) {#name, mem::MemErrc::name},
      ROCECERT_MEM_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  };
  return t;
}

Table<model::PostError> post_errors() {
  static constexpr EnumName<model::PostError> t[] = {
#define ROCECERT_POST_ERROR(name, errno_value) {#name, model::PostError::name},
#include "rocecert/model/post_errors.def"
#undef ROCECERT_POST_ERROR
  };
  return t;
}

Table<errors::AsyncEventType> async_events() {
  using errors::AsyncEventType;
  static constexpr EnumName<AsyncEventType> t[] = {
#define ROCECERT_X(name, value, target) {#name, AsyncEventType::name},
      ROCECERT_ASYNC_EVENTS(ROCECERT_X)
#undef ROCECERT_X
  };
  return t;
}

Table<std::uint8_t> flush_types() {
  static constexpr EnumName<std::uint8_t> t[] = {{"GLOBAL", 1}, {"PERSISTENT", 2}};
  return t;
}

Table<std::uint8_t> flush_levels() {
  static constexpr EnumName<std::uint8_t> t[] = {{"RANGE", 0}, {"MR", 1}};
  return t;
}

Table<model::FaultAction> fault_actions() {
  static const std::vector<EnumName<model::FaultAction>> t = [] {
    std::vector<EnumName<model::FaultAction>> v;
    for (std::size_t i = 0; i < model::kFaultActionCount; ++i) {
      const auto a = static_cast<model::FaultAction>(i);
      v.push_back({model::to_string(a), a});
    }
    return v;
  }();
  return t;
}

Table<model::OpcodeClass> opcode_classes() {
  static const std::vector<EnumName<model::OpcodeClass>> t = [] {
    std::vector<EnumName<model::OpcodeClass>> v;
    for (auto c = model::OpcodeClass::ANY;;
         c = static_cast<model::OpcodeClass>(static_cast<unsigned>(c) + 1)) {
      v.push_back({model::to_string(c), c});
      if (c == model::OpcodeClass::CNP) break;
    }
    return v;
  }();
  return t;
}

Table<model::LinkDirection> link_directions() {
  static constexpr EnumName<model::LinkDirection> t[] = {
      {"a_to_b", model::LinkDirection::A_TO_B},
      {"b_to_a", model::LinkDirection::B_TO_A},
  };
  return t;
}

Table<wire::Position> frame_positions() {
  static constexpr EnumName<wire::Position> t[] = {
      {"first", wire::Position::FIRST},
      {"middle", wire::Position::MIDDLE},
      {"last", wire::Position::LAST},
      {"only", wire::Position::ONLY},
  };
  return t;
}

}  // namespace rocecert::conformance::names
