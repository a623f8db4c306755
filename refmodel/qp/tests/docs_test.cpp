// docs/qp-state-machine.md is rendered from the transition table and must never drift from it.
// With ROCECERT_UPDATE_DOCS=1 in the environment the test rewrites the file instead.
#include <gtest/gtest.h>

#include <string>

#include "generated_doc.h"

#include "rocecert/docgen/qp_state_machine_doc.h"
#include "rocecert/qp/transitions.h"

namespace rocecert::qp {
namespace {

TEST(QpDocs, CommittedDocMatchesTable) {
  testing::expect_committed_doc("docs/qp-state-machine.md", render_qp_state_machine_doc());
}

TEST(QpDocs, RenderingShowsSpecNotesRows) {
  const std::string doc = render_qp_state_machine_doc();
  // Rows of docs/spec-notes.md §6.2, in the rendering's bit order.
  EXPECT_NE(doc.find("| RESET → INIT | ACCESS_FLAGS, PKEY_INDEX, PORT | – | ACCESS_FLAGS, "
                     "PKEY_INDEX, PORT | – | PKEY_INDEX, PORT, QKEY | – |"),
            std::string::npos);
  EXPECT_NE(doc.find("| RTR → RTS | TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, SQ_PSN | "
                     "CUR_STATE, ACCESS_FLAGS, ALT_PATH, MIN_RNR_TIMER, PATH_MIG_STATE | SQ_PSN |"),
            std::string::npos);
  EXPECT_NE(doc.find("| SQE → RTS | – | – | – | CUR_STATE, ACCESS_FLAGS | – | CUR_STATE, QKEY |"),
            std::string::npos);
  EXPECT_EQ(doc.find("| RESET → ERR |"), std::string::npos);
  EXPECT_EQ(doc.find("| RTR → RTR |"), std::string::npos);
  EXPECT_NE(doc.find("| **RESET** | RC UC UD | RC UC UD | – | – | – | – | – |"), std::string::npos);
  EXPECT_NE(doc.find("| 25 | 0x2000000 | RATE_LIMIT |"), std::string::npos);
}

TEST(QpDocs, RenderingShowsTheStateRules) {
  const std::string doc = render_qp_state_machine_doc();
  // One row per kStateRules entry, rendered from the table.
  for (const StateRules& r : kStateRules) {
    const std::string row = "| **" + std::string(to_string(r.state)) + "** | " +
                            (r.post_send ? "yes" : "–") + " | " + (r.post_recv ? "yes" : "–");
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
  EXPECT_NE(doc.find("| **SQE** | yes | yes | – | yes | yes | – | – | SQ |"), std::string::npos);
  EXPECT_NE(doc.find("| **ERR** | yes | yes | yes | – | – | – | – | SQ, RQ |"), std::string::npos);
}

}  // namespace
}  // namespace rocecert::qp
