// docs/errors.md is rendered from the error table and must never drift from it. With
// ROCECERT_UPDATE_DOCS=1 in the environment the test rewrites the file instead.
#include <gtest/gtest.h>

#include <string>

#include "generated_doc.h"

#include "rocecert/docgen/errors_doc.h"
#include "rocecert/errors/error_table.h"

namespace rocecert::errors {
namespace {

TEST(ErrorDocs, CommittedDocMatchesTable) {
  testing::expect_committed_doc("docs/errors.md", render_errors_doc());
}

TEST(ErrorDocs, RenderingShowsEveryClassAndTheKeyCells) {
  const std::string doc = render_errors_doc();
  for (const ErrorRow& r : kErrorTable)
    EXPECT_NE(doc.find("### " + std::string(r.name) + "\n"), std::string::npos) << r.name;
  // docs/spec-notes.md §4.4 CHK_RKEY on RC, as the RXE profile has it.
  EXPECT_NE(doc.find("| RC | RXE | NAK 0x62 | REM_ACCESS_ERR | REM_ACCESS_ERR | ERR, flush | "
                     "ERR, flush | – |"),
            std::string::npos);
  // docs/spec-notes.md §11.6: the receive-buffer-too-small split.
  EXPECT_NE(doc.find("| RC | IBA | NAK 0x61 | REM_INV_REQ_ERR | LOC_LEN_ERR |"), std::string::npos);
  EXPECT_NE(doc.find("| RC | RXE | NAK 0x63 | REM_OP_ERR | LOC_QP_OP_ERR |"), std::string::npos);
  EXPECT_NE(doc.find("| 0x64 | REQ_REMOTE_INVALID_RD_REQUEST | REM_INV_RD_REQ_ERR | REM_OP_ERR |"),
            std::string::npos);
  EXPECT_NE(doc.find("| REMOTE_ATOMIC | responder | RESP_RKEY_VIOLATION | "
                     "RESP_MISALIGNED_ATOMIC |"),
            std::string::npos);
}

}  // namespace
}  // namespace rocecert::errors
