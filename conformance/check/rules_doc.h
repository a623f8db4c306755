// docs/rules.md, rendered from the rule catalog (rocecert/check/rules.def). A test keeps the
// committed file equal to this output (ROCECERT_UPDATE_DOCS=1 rewrites it).
#pragma once

#include <string>

namespace rocecert::check {

std::string render_rules_doc();

}  // namespace rocecert::check
