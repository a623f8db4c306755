// check_setup (player.h): the vector's scenario with the numbers the devices gave written in,
// so that `rocecert check --setup` knows the run's QPs and keys on the wire (docs/check.md,
// "--setup"; docs/live.md, the vector-driven run).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "rocecert/verbs/player.h"

namespace rocecert::verbs {

std::string check_setup(const std::string& vector_json, const PlayResult& r) {
  // ordered_json: the setup reads as the vector does, key for key.
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(vector_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw PlayError(fmt::format("not JSON: {}", e.what()));
  }
  if (doc.is_object() && doc.contains("scenario")) doc = doc["scenario"];
  if (!doc.is_object() || !doc.contains("steps") || !doc["steps"].is_array())
    throw PlayError("not a scenario: no \"steps\" list");
  nlohmann::ordered_json& steps = doc["steps"];
  for (const DutNumber& n : r.numbers) {
    if (n.step >= steps.size() || !steps[n.step].is_object())
      throw PlayError(fmt::format("steps[{}]: no such step in the scenario", n.step));
    nlohmann::ordered_json& s = steps[n.step];
    const std::string op = s.value("op", "");
    const bool bind = op == "post_send" && s.contains("wr") && s["wr"].is_object() &&
                      s["wr"].contains("bind") && s["wr"]["bind"].is_object();
    switch (n.kind) {
      case DutNumber::Kind::QPN:
        if (op != "create_qp") break;
        s["dut_qpn"] = n.value;
        continue;
      case DutNumber::Kind::RKEY:
        if (op != "reg_mr") break;
        s["dut_rkey"] = n.value;
        continue;
      case DutNumber::Kind::IOVA:
        // The region's keys start at the device's address: a RETH's VA is in that space
        // (the player keeps each address's offset from its region's start).
        if (op != "reg_mr") break;
        s["iova"] = fmt::format("{:#x}", n.value);
        continue;
      case DutNumber::Kind::BIND_RKEY:
        if (!bind) break;
        s["wr"]["bind"]["dut_rkey"] = n.value;
        continue;
      case DutNumber::Kind::BIND_ADDR:
        // A bind by offset follows its region's iova; one by address is given the device's.
        if (!bind) break;
        if (s["wr"]["bind"].contains("addr"))
          s["wr"]["bind"]["addr"] = fmt::format("{:#x}", n.value);
        continue;
    }
    throw PlayError(fmt::format("steps[{}]: a {} step cannot hold the device's number", n.step,
                                op.empty() ? "nameless" : op));
  }
  return doc.dump(2) + "\n";
}

}  // namespace rocecert::verbs
