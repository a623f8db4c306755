// The scenario loader: JSON → validated Scenario (docs/scenario.md). Every check happens here,
// before anything runs; the first problem found is thrown as a ScenarioError with its JSON path.
// The loading itself is split by concern over the loader_*.cpp files (loader_internal.h).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "loader_internal.h"

namespace rocecert::conformance {

ScenarioError::ScenarioError(std::string file, std::string path, std::string message)
    : std::runtime_error(path.empty() ? file + ": " + message
                                      : file + ": " + path + ": " + message),
      file_(std::move(file)),
      path_(std::move(path)),
      message_(std::move(message)) {}

std::string_view to_string(ObjectKind k) {
  switch (k) {
    case ObjectKind::ADAPTER:
      return "adapter";
    case ObjectKind::PD:
      return "PD";
    case ObjectKind::MR:
      return "MR";
    case ObjectKind::MW:
      return "MW";
    case ObjectKind::CQ:
      return "CQ";
    case ObjectKind::QP:
      return "QP";
    case ObjectKind::SRQ:
      return "SRQ";
  }
  return "?";
}

ObjId Scenario::find(std::string_view name) const {
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i].name == name) return static_cast<ObjId>(i);
  return kNoObj;
}

std::uint64_t adapter_seed(std::uint64_t seed, std::size_t index) {
  // splitmix64 (Steele, Lea, Flood 2014), one output for state = seed + index + 1.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string_view post_error_name(model::PostError e) {
  return names::name_of(names::post_errors(), e);
}

namespace loader {

Scenario Loader::load(std::string_view text) {
  const json_input::json doc = in_.parse(text);
  const Node root{&doc, ""};
  in_.object(root, keys::kRoot);
  if (auto d = in_.optional(root, "description")) sc_.description = in_.string(*d);
  if (auto s = in_.optional(root, "seed")) sc_.seed = in_.u64(*s);
  const std::vector<Node> adapters = in_.array(in_.required(root, "adapters"), 1);
  for (std::size_t i = 0; i < adapters.size(); ++i) adapter(adapters[i], i);
  if (auto l = in_.optional(root, "links")) {
    for (const Node& n : in_.array(*l)) link(n);
  }
  const Node steps = in_.required(root, "steps");
  const std::vector<Node> list = in_.array(steps);
  prescan(list);
  for (std::size_t i = 0; i < list.size(); ++i) step(list[i], i);
  resolve_rule_qps();
  return std::move(sc_);
}
}  // namespace loader

Scenario parse_scenario(std::string_view text, const std::string& file) {
  return loader::Loader(file).load(text);
}

Scenario load_scenario_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError(path, "", "is a directory, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ScenarioError(path, "",
                        std::string("cannot open the scenario file: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, "", "cannot read the scenario file");
  return parse_scenario(ss.str(), path);
}

}  // namespace rocecert::conformance
