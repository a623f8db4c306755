// Names for the table's enums, the one-line description of an outcome, and the rendering of
// docs/errors.md from kErrorTable (the doc is generated, never typed).
#include "rocecert/errors/error_table.h"

#include <cstdio>

namespace rocecert::errors {

std::string_view to_string(ErrorProfile p) {
  switch (p) {
    case ErrorProfile::IBA:
      return "IBA";
    case ErrorProfile::RXE:
      return "RXE";
  }
  return "?";
}

bool error_profile_from_name(std::string_view name, ErrorProfile& out) {
  if (name == "IBA" || name == "iba") {
    out = ErrorProfile::IBA;
    return true;
  }
  if (name == "RXE" || name == "rxe") {
    out = ErrorProfile::RXE;
    return true;
  }
  return false;
}

std::string_view to_string(Tier t) {
  switch (t) {
    case Tier::RESOURCE:
      return "RESOURCE";
    case Tier::FATAL:
      return "FATAL";
    case Tier::REMOTE:
      return "REMOTE";
    case Tier::LOCAL:
      return "LOCAL";
    case Tier::FLUSH:
      return "FLUSH";
    case Tier::BENIGN:
      return "BENIGN";
  }
  return "?";
}

std::string_view to_string(Detector d) {
  switch (d) {
    case Detector::REQUESTER:
      return "requester";
    case Detector::RESPONDER:
      return "responder";
    case Detector::RECEIVER:
      return "receiver";
    case Detector::VERBS:
      return "verbs";
  }
  return "?";
}

std::string_view to_string(Response r) {
  switch (r) {
    case Response::NONE:
      return "NONE";
    case Response::SILENT_DROP:
      return "SILENT_DROP";
    case Response::ACK:
      return "ACK";
    case Response::NAK:
      return "NAK";
    case Response::RNR_NAK:
      return "RNR_NAK";
    case Response::RESERVED_NAK:
      return "RESERVED_NAK";
  }
  return "?";
}

std::string_view to_string(RequesterEffect r) {
  switch (r) {
    case RequesterEffect::NONE:
      return "NONE";
    case RequesterEffect::COMPLETES:
      return "COMPLETES";
    case RequesterEffect::RETRIES:
      return "RETRIES";
    case RequesterEffect::LOST:
      return "LOST";
  }
  return "?";
}

std::string_view to_string(StateChange s) {
  switch (s) {
    case StateChange::NONE:
      return "NONE";
    case StateChange::SQE:
      return "SQE";
    case StateChange::ERR:
      return "ERR";
  }
  return "?";
}

std::string_view to_string(Flush f) {
  switch (f) {
    case Flush::NONE:
      return "NONE";
    case Flush::SEND_QUEUE:
      return "SEND_QUEUE";
    case Flush::ALL:
      return "ALL";
  }
  return "?";
}

}  // namespace rocecert::errors
