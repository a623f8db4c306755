// The names a scenario uses for the verbs enumerations (libibverbs spellings without the IBV_
// prefixes), as tables the loader reads and error messages list.
#pragma once

#include <span>
#include <string_view>

#include "json_reader.h"
#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/mem/keys.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/model/adapter.h"
#include "rocecert/model/faults.h"
#include "rocecert/qp/attr.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/qp/types.h"
#include "rocecert/tx/work_request.h"

namespace rocecert::conformance::names {

template <typename E>
using Table = std::span<const json_input::EnumName<E>>;

Table<qp::QpType> qp_types();
Table<qp::QpState> qp_states();
Table<qp::AttrBit> attr_bits();
Table<qp::PathMigState> path_mig_states();
Table<mem::Access> access_flags();  // ibv_access_flags (MRs, MWs and QP access flags)
Table<tx::WrOpcode> wr_opcodes();
Table<tx::SendFlag> send_flags();
Table<cq::WcStatus> wc_statuses();
Table<cq::WcOpcode> wc_opcodes();
Table<cq::WcFlag> wc_flags();
Table<qp::ModifyError> modify_errors();
Table<mem::MemErrc> mem_errors();
Table<model::PostError> post_errors();
Table<std::uint8_t> flush_types();             // FETH placement type bits
Table<std::uint8_t> flush_levels();            // FETH selectivity level
Table<errors::AsyncEventType> async_events();  // ibv_event_type without IBV_EVENT_
// Link fault rules (docs/faults.md): the model's action and opcode class names, the two
// directions of a link as a scenario names them, and BTH opcode positions in lower case.
Table<model::FaultAction> fault_actions();
Table<model::OpcodeClass> opcode_classes();
Table<model::LinkDirection> link_directions();
Table<wire::Position> frame_positions();

// The name of a value in a table, or "?".
template <typename E>
std::string_view name_of(Table<E> table, E value) {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return "?";
}

}  // namespace rocecert::conformance::names
