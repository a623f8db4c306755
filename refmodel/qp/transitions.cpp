// Error names of the transition check (the table itself is data in transitions.h).
#include "rocecert/qp/transitions.h"

#include <cerrno>
#include <initializer_list>
#include <string>
#include <string_view>

namespace rocecert::qp {

int errno_value(ModifyError e) {
  if (e == ModifyError::OK) return 0;
  return e == ModifyError::QPN_EXHAUSTED ? ENOMEM : EINVAL;
}

std::string_view to_string(ModifyError e) {
  switch (e) {
    case ModifyError::OK:
      return "OK";
    case ModifyError::INVALID_STATE_VALUE:
      return "INVALID_STATE_VALUE";
    case ModifyError::CUR_STATE_NOT_ALLOWED:
      return "CUR_STATE_NOT_ALLOWED";
    case ModifyError::CUR_STATE_MISMATCH:
      return "CUR_STATE_MISMATCH";
    case ModifyError::ILLEGAL_TRANSITION:
      return "ILLEGAL_TRANSITION";
    case ModifyError::MISSING_REQUIRED_ATTR:
      return "MISSING_REQUIRED_ATTR";
    case ModifyError::UNEXPECTED_ATTR:
      return "UNEXPECTED_ATTR";
    case ModifyError::SQ_DRAINING:
      return "SQ_DRAINING";
    case ModifyError::INVALID_PATH_MTU:
      return "INVALID_PATH_MTU";
    case ModifyError::PATH_MTU_ABOVE_PORT:
      return "PATH_MTU_ABOVE_PORT";
    case ModifyError::INVALID_TIMEOUT:
      return "INVALID_TIMEOUT";
    case ModifyError::INVALID_RETRY_CNT:
      return "INVALID_RETRY_CNT";
    case ModifyError::INVALID_RNR_RETRY:
      return "INVALID_RNR_RETRY";
    case ModifyError::INVALID_MIN_RNR_TIMER:
      return "INVALID_MIN_RNR_TIMER";
    case ModifyError::INVALID_MAX_RD_ATOMIC:
      return "INVALID_MAX_RD_ATOMIC";
    case ModifyError::INVALID_MAX_DEST_RD_ATOMIC:
      return "INVALID_MAX_DEST_RD_ATOMIC";
    case ModifyError::INVALID_SQ_PSN:
      return "INVALID_SQ_PSN";
    case ModifyError::INVALID_RQ_PSN:
      return "INVALID_RQ_PSN";
    case ModifyError::INVALID_PKEY_INDEX:
      return "INVALID_PKEY_INDEX";
    case ModifyError::INVALID_PORT:
      return "INVALID_PORT";
    case ModifyError::INVALID_DEST_QPN:
      return "INVALID_DEST_QPN";
    case ModifyError::INVALID_ACCESS_FLAGS:
      return "INVALID_ACCESS_FLAGS";
    case ModifyError::INVALID_AV:
      return "INVALID_AV";
    case ModifyError::ALT_PATH_NOT_SUPPORTED:
      return "ALT_PATH_NOT_SUPPORTED";
    case ModifyError::INVALID_PATH_MIG_STATE:
      return "INVALID_PATH_MIG_STATE";
    case ModifyError::QP_NOT_FOUND:
      return "QP_NOT_FOUND";
    case ModifyError::INVALID_CAP:
      return "INVALID_CAP";
    case ModifyError::QPN_EXHAUSTED:
      return "QPN_EXHAUSTED";
  }
  return "?";
}

}  // namespace rocecert::qp
