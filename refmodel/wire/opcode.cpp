#include "rocecert/wire/opcode.h"

namespace rocecert::wire {

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::RC:
      return "RC";
    case Transport::UC:
      return "UC";
    case Transport::RD:
      return "RD";
    case Transport::UD:
      return "UD";
    case Transport::CNP:
      return "CNP";
    case Transport::XRC:
      return "XRC";
  }
  return "?";
}

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::SEND:
      return "SEND";
    case Operation::WRITE:
      return "WRITE";
    case Operation::READ_REQUEST:
      return "READ_REQUEST";
    case Operation::READ_RESPONSE:
      return "READ_RESPONSE";
    case Operation::ACK:
      return "ACK";
    case Operation::ATOMIC_ACK:
      return "ATOMIC_ACK";
    case Operation::COMPARE_SWAP:
      return "COMPARE_SWAP";
    case Operation::FETCH_ADD:
      return "FETCH_ADD";
    case Operation::RESYNC:
      return "RESYNC";
    case Operation::FLUSH:
      return "FLUSH";
    case Operation::ATOMIC_WRITE:
      return "ATOMIC_WRITE";
    case Operation::CNP:
      return "CNP";
  }
  return "?";
}

std::string_view to_string(Position p) {
  switch (p) {
    case Position::FIRST:
      return "FIRST";
    case Position::MIDDLE:
      return "MIDDLE";
    case Position::LAST:
      return "LAST";
    case Position::ONLY:
      return "ONLY";
  }
  return "?";
}

std::string_view header_name(Header h) {
  switch (h) {
    case Header::Rdeth:
      return "RDETH";
    case Header::Deth:
      return "DETH";
    case Header::Xrceth:
      return "XRCETH";
    case Header::Feth:
      return "FETH";
    case Header::Reth:
      return "RETH";
    case Header::AtomicEth:
      return "AtomicETH";
    case Header::Aeth:
      return "AETH";
    case Header::AtomicAckEth:
      return "AtomicAckETH";
    case Header::ImmDt:
      return "ImmDt";
    case Header::Ieth:
      return "IETH";
    case Header::CnpReserved:
      return "CNP reserved";
    case Header::kCount:
      break;
  }
  return "?";
}

bool opcode_from_name(std::string_view name, std::uint8_t& out) {
  for (const OpcodeInfo& info : kOpcodeTable) {
    if (info.known && info.name == name) {
      out = info.value;
      return true;
    }
  }
  return false;
}

}  // namespace rocecert::wire
