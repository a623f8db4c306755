// libFuzzer target for the vector reader (links rocecert_vectors). Input: a vector file's text
// (vectors/README.md, conformance/vectors/vector.schema.json). Properties:
//  1. Any input either reads or throws a VectorError naming the file; nothing else escapes
//     (libFuzzer reports any other exception, ASan/UBSan any crash or undefined behaviour).
//     Nothing is run on the model here.
//  2. A vector that reads is written back (to_text) to a text that reads again to the same
//     vector: the writer and the reader agree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rocecert/vectors/vectors.h"

namespace {

using namespace rocecert;

const std::string kFile = "fuzz.json";

bool same(const vectors::Vector& a, const vectors::Vector& b) {
  return a.id == b.id && a.objective == b.objective && a.clauses == b.clauses &&
         a.capabilities == b.capabilities && a.opcodes == b.opcodes &&
         a.transitions == b.transitions && a.errors == b.errors && a.scenario == b.scenario;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vectors::Loaded first;
  try {
    first = vectors::parse(text, kFile);
  } catch (const vectors::VectorError& e) {
    if (std::string_view(e.what()).rfind(kFile, 0) != 0) __builtin_trap();
    return 0;
  }
  vectors::Loaded again;
  try {
    again = vectors::parse(vectors::to_text(first.vector), kFile);
  } catch (const vectors::VectorError&) {
    __builtin_trap();  // what the writer wrote, the reader must read
  }
  if (!same(first.vector, again.vector)) __builtin_trap();
  return 0;
}
