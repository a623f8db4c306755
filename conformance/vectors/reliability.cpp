// The `reliability` area (vectors/README.md): the hand-written scenarios of vectors/scenarios/
// (loss, duplication and reordering, go-back-N across the PSN wrap, retry and RNR exhaustion,
// two QPs failing at once, CQ overflow, ACK coalescing, DCQCN), each recorded on the model as a
// vector: their own expectations stay, and what the model did after the last of them is added.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "internal.h"

namespace rocecert::vectors::detail {
namespace {

struct Source {
  const char* file;  // in the scenarios directory
  const char* slug;
  std::vector<std::string> clauses;
  std::vector<std::string> capabilities;
};

const std::vector<Source>& sources() {
  static const std::vector<Source> s = {
      {"ack_coalescing.json",
       "ack-coalescing",
       {"IBA Vol. 1 §9.7.5.1.2 (coalesced acknowledgements)", "docs/spec-notes.md §3.4-3.5"},
       {"RC"}},
      {"burst_and_psn_wrap.json",
       "go-back-n-psn-wrap",
       {"IBA Vol. 1 §9.7.6.1.3 (go-back-N), §9.7.1 (PSN, modulo 2^24)",
        "docs/spec-notes.md §3.1, §5.3"},
       {"RC"}},
      {"cq_overflow.json",
       "cq-overflow",
       {"IBA Vol. 1 §11.4.2.1 (CQ overrun), §10.10.4 (affiliated asynchronous errors)",
        "docs/errors.md (CQ_OVERFLOW); vectors/real/README.md (cq_overflow.pcap)"},
       {"RC"}},
      {"dcqcn_ecn.json",
       "dcqcn-cnp",
       {"IBA Vol. 1 Annex A17.9 (congestion notification)", "docs/dcqcn.md"},
       {"RC", "CNP"}},
      {"go_back_n.json",
       "go-back-n",
       {"IBA Vol. 1 §9.7.5.1.2 (NAK PSN sequence error), §9.7.6.1.3 (go-back-N)",
        "docs/spec-notes.md §5.3"},
       {"RC"}},
      {"loss_patterns.json",
       "ack-timeout",
       {"IBA Vol. 1 §9.7.6.1.1 (transport timer), §9.7.5.1.3 (duplicate requests)",
        "docs/spec-notes.md §4.5, §5.2"},
       {"RC", "ATOMIC"}},
      {"random_faults.json",
       "random-faults",
       {"IBA Vol. 1 §9.7 (RC reliability: loss, duplication, reordering)",
        "docs/spec-notes.md §3-§5"},
       {"RC"}},
      {"retry_exhausted.json",
       "retry-exhausted",
       {"IBA Vol. 1 §9.7.6.1.1 (retry count), §11.6.2 (RETRY_EXC_ERR)",
        "docs/spec-notes.md §5.2, §5.7"},
       {"RC"}},
      {"rnr_retry.json",
       "rnr-retry",
       {"IBA Vol. 1 §9.7.5.2.8 (RNR NAK), §9.7.6.1.1 (RNR retry count)",
        "docs/spec-notes.md §4.2, §5.4"},
       {"RC"}},
      {"two_qp_errors.json",
       "two-qp-errors",
       {"IBA Vol. 1 §10.8 (errors affect only their QP), §9.7.5.2.4 (remote access error)",
        "docs/error-arbitration.md"},
       {"RC"}},
  };
  return s;
}

}  // namespace

std::vector<Generated> reliability_vectors(const std::string& scenarios_dir) {
  std::vector<Generated> out;
  if (scenarios_dir.empty()) return out;
  for (const Source& src : sources()) {
    const std::string path = (std::filesystem::path(scenarios_dir) / src.file).string();
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw VectorError(fmt::format("{}: cannot open (the reliability area's source)", path));
    std::stringstream text;
    text << in.rdbuf();
    json sc = json::parse(text.str(), nullptr, false);
    if (sc.is_discarded() || !sc.is_object())
      throw VectorError(fmt::format("{}: not a JSON scenario", path));
    sc.erase("$schema");
    Vector v;
    v.id = fmt::format("reliability/{}-00", src.slug);
    v.objective = sc.value("description", std::string(src.slug));
    v.clauses = src.clauses;
    v.capabilities = src.capabilities;
    out.push_back(record(std::move(v), std::move(sc)));
  }
  return out;
}

}  // namespace rocecert::vectors::detail
