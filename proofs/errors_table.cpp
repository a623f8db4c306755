// The errors table (refmodel/include/rocecert/errors/error_classes.def, errors::kErrorTable) read
// cell by cell into the solver, with errors::error_for_syndrome() enumerated over its 256
// syndromes: every class has one NAK, one requester outcome, one receive status and one state
// change with its flush per QP type and profile, and they agree with each other and with the
// specification's requester reaction (IBA Vol. 1 §9.7.5.2, §10.3.1, §10.7; docs/spec-notes.md
// §4.1, §4.3, §6.5, §6.6).
//
// A cell is picked by an unknown index; each property must hold for every index (and, for the
// syndromes, every 8-bit syndrome), so a counterexample names the cell that breaks it.
#include <fmt/format.h>

#include <vector>

#include "internal.h"
#include "rocecert/errors/error_table.h"

namespace rocecert::proofs::detail {
namespace {

using errors::ErrorClass;
using errors::ErrorProfile;
using errors::Flush;
using errors::RequesterEffect;
using errors::Response;
using errors::StateChange;
using Table = ErrorTable;

constexpr unsigned kTypes = qp::kQpTypeCount;
constexpr unsigned kProfiles = errors::kErrorProfileCount;
constexpr unsigned kCells = errors::kErrorClassCount * kTypes * kProfiles;
constexpr unsigned kNone = 0xFF;  // an absent optional (status, class, event)
constexpr std::array<ErrorProfile, kProfiles> kAllProfiles{ErrorProfile::IBA, ErrorProfile::RXE};
static_assert(kCells < 0x8000, "cell indices are 16-bit");

// Cells in (class, QP type, profile) order.
unsigned cell_of(unsigned error, unsigned type, unsigned profile) {
  return (error * kTypes + type) * kProfiles + profile;
}

unsigned num(bool b) {
  return b ? 1u : 0u;
}
template <class E>
unsigned num(E e) {
  return static_cast<unsigned>(e);
}
template <class E>
unsigned num(const std::optional<E>& e) {
  return e ? static_cast<unsigned>(*e) : kNone;
}

// One 8-bit field of every cell, as a function of the cell index: an ite chain over the table.
struct Field {
  std::vector<unsigned> values;
  z3::expr at(z3::context& c, const z3::expr& index) const {
    z3::expr r = c.bv_val(values.back(), 8);
    for (std::size_t i = values.size() - 1; i-- > 0;)
      r = z3::ite(index == c.bv_val(static_cast<unsigned>(i), index.get_sort().bv_size()),
                  c.bv_val(values[i], 8), r);
    return r;
  }
};

// The table's fields, read from the rows (the broken variant edits one cell first).
struct Cells {
  Field error, tier, type, profile, applies, response, nak, requester, status, exhausted, receive,
      req_state, req_flush, resp_state, resp_flush, event0, event1;
  Field syndrome_class;  // error_for_syndrome(s) for s = 0..255

  explicit Cells(const Table& t) {
    for (unsigned e = 0; e < t.size(); ++e)
      for (unsigned ty = 0; ty < kTypes; ++ty)
        for (unsigned p = 0; p < kProfiles; ++p) {
          const errors::Outcome& o = t[e].get(qp::kAllQpTypes[ty], kAllProfiles[p]);
          error.values.push_back(e);
          tier.values.push_back(num(t[e].tier));
          type.values.push_back(ty);
          profile.values.push_back(p);
          applies.values.push_back(num(o.applies));
          response.values.push_back(num(o.response));
          nak.values.push_back(o.nak_code);
          requester.values.push_back(num(o.requester));
          status.values.push_back(num(o.requester_status));
          exhausted.values.push_back(num(o.when_retries_exhausted));
          receive.values.push_back(num(o.receive_status));
          req_state.values.push_back(num(o.requester_state));
          req_flush.values.push_back(num(o.requester_flush));
          resp_state.values.push_back(num(o.responder_state));
          resp_flush.values.push_back(num(o.responder_flush));
          event0.values.push_back(num(o.events[0]));
          event1.values.push_back(num(o.events[1]));
        }
    for (unsigned s = 0; s < 256; ++s)
      syndrome_class.values.push_back(
          num(errors::error_for_syndrome(static_cast<std::uint8_t>(s))));
  }
};

Table table(Variant v) {
  Table t = errors::kErrorTable;
  if (v == Variant::BROKEN) {  // two RC cells of the RXE profile swap their requester status
    errors::Outcome& access = t[num(ErrorClass::REQ_REMOTE_ACCESS)].by_type[0].rxe;
    errors::Outcome& operational = t[num(ErrorClass::REQ_REMOTE_OPERATIONAL)].by_type[0].rxe;
    std::swap(access.requester_status, operational.requester_status);
  }
  return t;
}

// One property over every cell i (or every syndrome s and profile p).
struct Property {
  std::string name;
  z3::expr holds;
};

std::string cell_name(unsigned i) {
  const unsigned p = i % kProfiles, ty = (i / kProfiles) % kTypes, e = i / kProfiles / kTypes;
  return fmt::format("{} on {} ({})", errors::to_string(static_cast<ErrorClass>(e)),
                     qp::to_string(qp::kAllQpTypes[ty]), errors::to_string(kAllProfiles[p]));
}

std::string status_name(unsigned s) {
  return s == kNone ? "none" : std::string(cq::to_string(static_cast<cq::WcStatus>(s)));
}

}  // namespace

Outcome prove_errors_table(Variant v, const Options& /*options*/) {
  return prove_errors_table_of(table(v));
}

Outcome prove_errors_table_of(const ErrorTable& t) {
  z3::context c;
  const Cells cells(t);
  const z3::expr i = c.bv_const("cell", 16), s = c.bv_const("syndrome", 8),
                 p = c.bv_const("profile", 8);
  const auto k = [&](unsigned x) { return c.bv_val(x, 8); };
  const auto n = [&](auto e) { return k(num(e)); };
  const auto f = [&](const Field& field, const z3::expr& at) { return field.at(c, at); };
  const auto cell = [&](const z3::expr& error, const z3::expr& type, const z3::expr& profile) {
    return (z3::zext(error, 8) * c.bv_val(kTypes, 16) + z3::zext(type, 8)) *
               c.bv_val(kProfiles, 16) +
           z3::zext(profile, 8);
  };
  const auto is_error = [&](const z3::expr& status) {
    return status != k(kNone) && status != n(cq::WcStatus::SUCCESS) &&
           status != n(cq::WcStatus::WR_FLUSH_ERR);
  };
  const z3::expr rc = k(0);

  // The cell's fields.
  const z3::expr applies = f(cells.applies, i) == k(1), type = f(cells.type, i),
                 prof = f(cells.profile, i), response = f(cells.response, i), nak = f(cells.nak, i),
                 requester = f(cells.requester, i), status = f(cells.status, i),
                 exhausted = f(cells.exhausted, i), receive = f(cells.receive, i),
                 req_state = f(cells.req_state, i), req_flush = f(cells.req_flush, i),
                 resp_state = f(cells.resp_state, i), resp_flush = f(cells.resp_flush, i),
                 event0 = f(cells.event0, i), event1 = f(cells.event1, i), tier = f(cells.tier, i);
  // The cell of the class reached when the retries run out (same QP type and profile).
  const z3::expr after = cell(exhausted, type, prof);
  // What an RC requester meets on receiving the cell's NAK (same profile).
  const z3::expr nak_class = f(cells.syndrome_class, nak);
  const z3::expr nak_cell = cell(nak_class, rc, prof);
  const z3::expr rnr_class = f(cells.syndrome_class, k(wire::rnr_nak_syndrome(0)));
  const z3::expr rnr_cell = cell(rnr_class, rc, prof);

  const auto state_matches_flush = [&](const z3::expr& state, const z3::expr& flush) {
    return (state == n(StateChange::ERR)) == (flush == n(Flush::ALL)) &&
           (state == n(StateChange::SQE)) == (flush == n(Flush::SEND_QUEUE));
  };
  const std::vector<Property> per_cell = {
      {"a class that cannot arise on a QP type does nothing there",
       applies ||
           (response == n(Response::NONE) && nak == k(0) && requester == n(RequesterEffect::NONE) &&
            status == k(kNone) && exhausted == k(kNone) && receive == k(kNone) &&
            req_state == n(StateChange::NONE) && resp_state == n(StateChange::NONE) &&
            event0 == k(kNone))},
      {"one NAK: a NAK response carries a defined NAK code (0x60-0x64), no other response does",
       (response == n(Response::NAK)) == (nak != k(0)) &&
           (nak == k(0) || (z3::uge(nak, k(0x60)) && z3::ule(nak, k(0x64))))},
      {"one requester outcome: a status exactly when the WQE completes, a class exactly when it "
       "is retried",
       (requester == n(RequesterEffect::COMPLETES)) == (status != k(kNone)) &&
           (requester == n(RequesterEffect::RETRIES)) == (exhausted != k(kNone))},
      {"one state change per side, with its flush: ERR flushes both queues, SQE the send queue "
       "(UC and UD, IBA profile only: RC and rxe have no SQE); the responder never enters SQE",
       state_matches_flush(req_state, req_flush) && state_matches_flush(resp_state, resp_flush) &&
           resp_state != n(StateChange::SQE) &&
           z3::implies(req_state == n(StateChange::SQE),
                       type != rc && prof == n(ErrorProfile::IBA))},
      {"an error completion changes the QP's state (RC: to ERR); an errored receive WQE takes "
       "the responder to ERR",
       z3::implies(is_error(status),
                   req_state != n(StateChange::NONE) &&
                       z3::implies(type == rc, req_state == n(StateChange::ERR))) &&
           z3::implies(is_error(receive), resp_state == n(StateChange::ERR))},
      {"WR_FLUSH_ERR completes WQEs only for the FLUSH tier's classes",
       z3::implies(
           status == n(cq::WcStatus::WR_FLUSH_ERR) || receive == n(cq::WcStatus::WR_FLUSH_ERR),
           tier == n(errors::Tier::FLUSH))},
      {"retries end in an error: only RC retries, and the class reached when they run out "
       "completes the WQE in error, moves the QP to ERR and is FATAL",
       z3::implies(requester == n(RequesterEffect::RETRIES),
                   type == rc && f(cells.requester, after) == n(RequesterEffect::COMPLETES) &&
                       is_error(f(cells.status, after)) &&
                       f(cells.req_state, after) == n(StateChange::ERR) &&
                       f(cells.tier, after) == n(errors::Tier::FATAL))},
      {"a NAK completes the requester's WQE as the requester's class for that syndrome does "
       "(same status, retries and state change)",
       z3::implies(response == n(Response::NAK), type == rc && nak_class != k(kNone) &&
                                                     requester == f(cells.requester, nak_cell) &&
                                                     status == f(cells.status, nak_cell) &&
                                                     exhausted == f(cells.exhausted, nak_cell) &&
                                                     req_state == f(cells.req_state, nak_cell)) &&
           z3::implies(response == n(Response::RNR_NAK),
                       type == rc && ((requester == f(cells.requester, rnr_cell) &&
                                       exhausted == f(cells.exhausted, rnr_cell)) ||
                                      f(cells.error, i) == f(cells.exhausted, rnr_cell)))},
      {"UC and UD send no acknowledgement and never retry",
       z3::implies(type != rc,
                   (response == n(Response::NONE) || response == n(Response::SILENT_DROP)) &&
                       requester != n(RequesterEffect::RETRIES))},
      {"rxe raises no QP asynchronous event, only CQ_ERR",
       z3::implies(prof == n(ErrorProfile::RXE),
                   (event0 == k(kNone) || event0 == n(errors::AsyncEventType::CQ_ERR)) &&
                       (event1 == k(kNone) || event1 == n(errors::AsyncEventType::CQ_ERR)))},
  };

  // The requester's reaction to every syndrome (docs/spec-notes.md §4.1, §4.3), on RC.
  const z3::expr by = f(cells.syndrome_class, s);
  const z3::expr j = cell(by, rc, p);
  const z3::expr j_status = f(cells.status, j), j_req = f(cells.requester, j);
  const z3::expr j_after = cell(f(cells.exhausted, j), rc, p);
  const auto completes = [&](cq::WcStatus st) {
    return j_req == n(RequesterEffect::COMPLETES) && j_status == n(st) &&
           f(cells.req_state, j) == n(StateChange::ERR);
  };
  const auto retries_then = [&](cq::WcStatus st) {
    return j_req == n(RequesterEffect::RETRIES) && f(cells.status, j_after) == n(st);
  };
  const z3::expr iba = p == n(ErrorProfile::IBA);
  const z3::expr spec = z3::ite(
      z3::ult(s, k(0x20)), by == k(kNone),
      z3::ite(
          z3::ult(s, k(0x40)), retries_then(cq::WcStatus::RNR_RETRY_EXC_ERR),
          z3::ite(
              s == k(0x60), retries_then(cq::WcStatus::RETRY_EXC_ERR),
              z3::ite(
                  s == k(0x61), completes(cq::WcStatus::REM_INV_REQ_ERR),
                  z3::ite(
                      s == k(0x62), completes(cq::WcStatus::REM_ACCESS_ERR),
                      z3::ite(s == k(0x63), completes(cq::WcStatus::REM_OP_ERR),
                              z3::ite(s == k(0x64),
                                      z3::ite(iba, completes(cq::WcStatus::REM_INV_RD_REQ_ERR),
                                              completes(cq::WcStatus::REM_OP_ERR)),
                                      // reserved: type 10, NAK codes 0x65-0x7F, bit 7 set
                                      by != k(kNone) && j_req == n(RequesterEffect::COMPLETES) &&
                                          is_error(j_status) &&
                                          f(cells.req_state, j) == n(StateChange::ERR))))))));

  const z3::expr any_cell = z3::ult(i, c.bv_val(kCells, 16));
  const auto describe_cell = [&](const z3::model& m, const std::string& name) {
    const unsigned at = m.eval(i, true).get_numeral_uint();
    const auto get = [&](const Field& field) { return field.values.at(at); };
    return fmt::format(
        "{}: {}: response {} nak {:#04x}, requester {} status {}, receive {}, requester QP {}, "
        "responder QP {}",
        name, cell_name(at), errors::to_string(static_cast<Response>(get(cells.response))),
        get(cells.nak), errors::to_string(static_cast<RequesterEffect>(get(cells.requester))),
        status_name(get(cells.status)), status_name(get(cells.receive)),
        errors::to_string(static_cast<StateChange>(get(cells.req_state))),
        errors::to_string(static_cast<StateChange>(get(cells.resp_state))));
  };
  for (const Property& prop : per_cell) {
    const Outcome o = settle(c, z3::implies(any_cell, prop.holds),
                             [&](const z3::model& m) { return describe_cell(m, prop.name); });
    if (!o.proved) return o;
  }
  const Outcome o = settle(c, z3::implies(z3::ult(p, k(kProfiles)), spec), [&](const z3::model& m) {
    const unsigned syn = m.eval(s, true).get_numeral_uint(),
                   pr = m.eval(p, true).get_numeral_uint();
    const unsigned cls = cells.syndrome_class.values.at(syn);
    const unsigned at = cls == kNone ? 0 : cell_of(cls, 0, pr);
    return fmt::format(
        "the requester's reaction to syndrome {:#04x} ({}): class {}, requester {} status {}", syn,
        errors::to_string(kAllProfiles.at(pr)),
        cls == kNone ? "none" : std::string(errors::to_string(static_cast<ErrorClass>(cls))),
        cls == kNone ? "-"
                     : std::string(errors::to_string(
                           static_cast<RequesterEffect>(cells.requester.values.at(at)))),
        cls == kNone ? "-" : status_name(cells.status.values.at(at)));
  });
  if (!o.proved) return o;
  Outcome ok;
  ok.proved = true;
  ok.evidence = fmt::format("{} cells ({} classes x {} QP types x {} profiles), 256 syndromes",
                            kCells, errors::kErrorClassCount, kTypes, kProfiles);
  return ok;
}

}  // namespace rocecert::proofs::detail
