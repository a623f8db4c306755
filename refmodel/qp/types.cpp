// Names of the QP enumerations, as rdma-core spells them without the IBV_ prefixes.
#include "rocecert/qp/types.h"

#include <string>

namespace rocecert::qp {

std::string_view to_string(QpType t) {
  switch (t) {
    case QpType::RC:
      return "RC";
    case QpType::UC:
      return "UC";
    case QpType::UD:
      return "UD";
  }
  return "?";
}

std::string_view to_string(QpState s) {
  switch (s) {
    case QpState::RESET:
      return "RESET";
    case QpState::INIT:
      return "INIT";
    case QpState::RTR:
      return "RTR";
    case QpState::RTS:
      return "RTS";
    case QpState::SQD:
      return "SQD";
    case QpState::SQE:
      return "SQE";
    case QpState::ERR:
      return "ERR";
  }
  return "?";
}

std::string_view to_string(AttrBit b) {
  switch (b) {
    case AttrBit::STATE:
      return "STATE";
    case AttrBit::CUR_STATE:
      return "CUR_STATE";
    case AttrBit::EN_SQD_ASYNC_NOTIFY:
      return "EN_SQD_ASYNC_NOTIFY";
    case AttrBit::ACCESS_FLAGS:
      return "ACCESS_FLAGS";
    case AttrBit::PKEY_INDEX:
      return "PKEY_INDEX";
    case AttrBit::PORT:
      return "PORT";
    case AttrBit::QKEY:
      return "QKEY";
    case AttrBit::AV:
      return "AV";
    case AttrBit::PATH_MTU:
      return "PATH_MTU";
    case AttrBit::TIMEOUT:
      return "TIMEOUT";
    case AttrBit::RETRY_CNT:
      return "RETRY_CNT";
    case AttrBit::RNR_RETRY:
      return "RNR_RETRY";
    case AttrBit::RQ_PSN:
      return "RQ_PSN";
    case AttrBit::MAX_QP_RD_ATOMIC:
      return "MAX_QP_RD_ATOMIC";
    case AttrBit::ALT_PATH:
      return "ALT_PATH";
    case AttrBit::MIN_RNR_TIMER:
      return "MIN_RNR_TIMER";
    case AttrBit::SQ_PSN:
      return "SQ_PSN";
    case AttrBit::MAX_DEST_RD_ATOMIC:
      return "MAX_DEST_RD_ATOMIC";
    case AttrBit::PATH_MIG_STATE:
      return "PATH_MIG_STATE";
    case AttrBit::CAP:
      return "CAP";
    case AttrBit::DEST_QPN:
      return "DEST_QPN";
    case AttrBit::RATE_LIMIT:
      return "RATE_LIMIT";
  }
  return "?";
}

std::string_view to_string(PathMtu m) {
  switch (m) {
    case PathMtu::MTU_256:
      return "256";
    case PathMtu::MTU_512:
      return "512";
    case PathMtu::MTU_1024:
      return "1024";
    case PathMtu::MTU_2048:
      return "2048";
    case PathMtu::MTU_4096:
      return "4096";
  }
  return "?";
}

std::string to_string(AttrMask m) {
  if (m.empty()) return "-";
  std::string out;
  for (unsigned bit = 0; bit < 32; ++bit) {
    const std::uint32_t value = 1u << bit;
    if ((m.raw() & value) == 0) continue;
    if (!out.empty()) out += '|';
    if ((kKnownAttrBits.raw() & value) != 0) {
      out += to_string(static_cast<AttrBit>(value));
    } else {
      out += "BIT" + std::to_string(bit);
    }
  }
  return out;
}

}  // namespace rocecert::qp
