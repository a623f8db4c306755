// Documentation rendered from the QP transition table and state rules: kept out of the runtime
// libraries, linked by the docs tests.
#pragma once

#include <string>

namespace rocecert::qp {

// docs/qp-state-machine.md, rendered from the table (a test keeps the committed file equal).
std::string render_qp_state_machine_doc();

}  // namespace rocecert::qp
