// What the vector files share inside rocecert_vectors.
#pragma once

#include <string>

#include "rocecert/wire/opcode.h"

namespace rocecert::vectors::detail {

// Why an opcode of the table has no vector (coverage); empty when it should have one.
std::string no_vector_reason(const wire::OpcodeInfo& op);

}  // namespace rocecert::vectors::detail
