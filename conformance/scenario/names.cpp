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
  using mem::Access;
  static constexpr EnumName<Access> t[] = {
      {"LOCAL_WRITE", Access::LOCAL_WRITE},
      {"REMOTE_WRITE", Access::REMOTE_WRITE},
      {"REMOTE_READ", Access::REMOTE_READ},
      {"REMOTE_ATOMIC", Access::REMOTE_ATOMIC},
      {"MW_BIND", Access::MW_BIND},
      {"ZERO_BASED", Access::ZERO_BASED},
      {"ON_DEMAND", Access::ON_DEMAND},
      {"HUGETLB", Access::HUGETLB},
      {"FLUSH_GLOBAL", Access::FLUSH_GLOBAL},
      {"FLUSH_PERSISTENT", Access::FLUSH_PERSISTENT},
      {"RELAXED_ORDERING", Access::RELAXED_ORDERING},
  };
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
  using model::PostError;
  static constexpr EnumName<PostError> t[] = {
      {"OK", PostError::OK},
      {"NO_SUCH_QP", PostError::NO_SUCH_QP},
      {"INVALID_STATE", PostError::INVALID_STATE},
      {"INVALID_OPCODE", PostError::INVALID_OPCODE},
      {"TOO_MANY_SGE", PostError::TOO_MANY_SGE},
      {"INLINE_TOO_LONG", PostError::INLINE_TOO_LONG},
      {"BAD_ATOMIC", PostError::BAD_ATOMIC},
      {"MESSAGE_TOO_LONG", PostError::MESSAGE_TOO_LONG},
      {"QUEUE_FULL", PostError::QUEUE_FULL},
      {"SRQ_ATTACHED", PostError::SRQ_ATTACHED},
      {"NO_SUCH_SRQ", PostError::NO_SUCH_SRQ},
      {"NO_SUCH_CQ", PostError::NO_SUCH_CQ},
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

}  // namespace rocecert::conformance::names
