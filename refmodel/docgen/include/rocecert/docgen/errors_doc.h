// Documentation rendered from the errors table: kept out of the runtime libraries, linked by the
// docs tests (and the error-class tests, which print outcomes).
#pragma once

#include <string>

#include "rocecert/errors/error_table.h"

namespace rocecert::errors {

// One line, e.g. "NAK 0x62; requester REM_ACCESS_ERR, ERR; receive REM_ACCESS_ERR; responder
// ERR; events QP_ACCESS_ERR". "n/a" when the class does not apply.
std::string describe(const Outcome& o);

// docs/errors.md, rendered from kErrorTable (refmodel/errors/tests/docs_test.cpp keeps the
// committed file equal to it).
std::string render_errors_doc();

}  // namespace rocecert::errors
