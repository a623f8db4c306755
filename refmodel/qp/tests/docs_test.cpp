// docs/qp-state-machine.md is rendered from the transition table and must never drift from it.
// With ROCECERT_UPDATE_DOCS=1 in the environment the test rewrites the file instead.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "rocecert/qp/transitions.h"

namespace rocecert::qp {
namespace {

const std::string kDocPath = std::string(ROCECERT_SOURCE_DIR) + "/docs/qp-state-machine.md";

TEST(QpDocs, CommittedDocMatchesTable) {
  const std::string rendered = render_qp_state_machine_doc();
  const char* update = std::getenv("ROCECERT_UPDATE_DOCS");
  if (update != nullptr && *update != '\0' && std::string(update) != "0") {
    std::ofstream out(kDocPath, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out) << "cannot write " << kDocPath;
    out << rendered;
  }
  std::ifstream in(kDocPath, std::ios::binary);
  ASSERT_TRUE(in) << kDocPath << " is missing; run with ROCECERT_UPDATE_DOCS=1";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), rendered)
      << kDocPath << " differs from the table; regenerate with ROCECERT_UPDATE_DOCS=1";
}

TEST(QpDocs, RenderingShowsDigestRows) {
  const std::string doc = render_qp_state_machine_doc();
  // Rows of digest §6.2, in the rendering's bit order.
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

}  // namespace
}  // namespace rocecert::qp
