// Names of the MR/MW kinds and states (region.h).
#include "rocecert/mem/region.h"

namespace rocecert::mem {

std::string_view to_string(MrKind k) {
  switch (k) {
    case MrKind::USER:
      return "USER";
    case MrKind::FAST_REG:
      return "FAST_REG";
  }
  return "?";
}
std::string_view to_string(MrState s) {
  switch (s) {
    case MrState::FREE:
      return "FREE";
    case MrState::VALID:
      return "VALID";
  }
  return "?";
}
std::string_view to_string(MwType t) {
  switch (t) {
    case MwType::TYPE_1:
      return "TYPE_1";
    case MwType::TYPE_2:
      return "TYPE_2";
  }
  return "?";
}
std::string_view to_string(MwState s) {
  switch (s) {
    case MwState::FREE:
      return "FREE";
    case MwState::VALID:
      return "VALID";
  }
  return "?";
}

}  // namespace rocecert::mem
