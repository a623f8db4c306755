// DUT profiles: the JSON format of docs/profiles.md, Profile::covers() and the built-in profiles
// (profiles/*.json, embedded by embed_profiles.cmake).
#include "rocecert/check/profile.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "json_in.h"

namespace rocecert::check {

namespace {

using Reader = json_in::Reader<ProfileError>;
using json_in::child_path;
using json_in::json;

// The rule ids closest to `id` (same family first), for "did you mean".
std::string suggestion(std::string_view id) {
  const std::string_view family = id.substr(0, id.find('.'));
  std::string list;
  for (const RuleInfo& r : rules()) {
    if (r.family() != family) continue;
    list += (list.empty() ? "" : ", ") + std::string(r.id);
  }
  if (list.empty()) {
    std::string families;
    std::string_view last;
    for (const RuleInfo& r : rules()) {
      if (r.family() == last) continue;
      last = r.family();
      families += (families.empty() ? "" : ", ") + std::string(last);
    }
    return " (families: " + families + "; docs/rules.md lists every rule)";
  }
  return " (rules of " + std::string(family) + ": " + list + ")";
}

Deviation read_deviation(const Reader& in, const json& v, const std::string& path) {
  in.object(v, path, {"rule", "cause", "justification", "reference"});
  Deviation d;
  const std::string rule_path = child_path(path, "rule");
  const std::string id = in.string(in.required(v, path, "rule"), rule_path);
  const std::optional<RuleId> r = find_rule(id);
  if (!r) in.fail(rule_path, "unknown rule \"" + id + "\"" + suggestion(id));
  d.rule = *r;
  d.cause = in.string(in.required(v, path, "cause"), child_path(path, "cause"));
  if (d.cause.empty()) in.fail(child_path(path, "cause"), "empty; \"*\" covers every cause");
  d.justification =
      in.string(in.required(v, path, "justification"), child_path(path, "justification"));
  if (d.justification.empty())
    in.fail(child_path(path, "justification"), "empty: say why the DUT may do this");
  d.reference = in.string(in.required(v, path, "reference"), child_path(path, "reference"));
  if (d.reference.empty())
    in.fail(child_path(path, "reference"), "empty: say where the behaviour is documented");
  return d;
}

std::vector<std::string> read_patterns(const Reader& in, const json& doc, const std::string& path,
                                       const char* key) {
  const std::string p = child_path(path, key);
  const json& v = in.required(doc, path, key);
  in.array(v, p);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out.push_back(in.string(v[i], child_path(p, i)));
    if (out.back().empty()) in.fail(child_path(p, i), "empty pattern");
  }
  if (out.empty()) in.fail(p, "give at least one pattern");
  return out;
}

VectorDeviation read_vector_deviation(const Reader& in, const json& v, const std::string& path) {
  in.object(v, path, {"vectors", "differences", "cause", "justification", "reference"});
  VectorDeviation d;
  d.vectors = read_patterns(in, v, path, "vectors");
  d.differences = read_patterns(in, v, path, "differences");
  for (const char* key : {"cause", "justification", "reference"}) {
    std::string& field = key[0] == 'c' ? d.cause : key[0] == 'j' ? d.justification : d.reference;
    field = in.string(in.required(v, path, key), child_path(path, key));
    if (field.empty()) in.fail(child_path(path, key), "empty");
  }
  return d;
}

bool matches(const std::string& pattern, std::string_view text) {
  return fnmatch(pattern.c_str(), std::string(text).c_str(), 0) == 0;
}

}  // namespace

const VectorDeviation* Profile::covers_vector(std::string_view id,
                                              const std::vector<std::string>& differences) const {
  if (differences.empty()) return nullptr;
  for (const VectorDeviation& d : vector_deviations) {
    if (std::none_of(d.vectors.begin(), d.vectors.end(),
                     [&](const std::string& p) { return matches(p, id); }))
      continue;
    const bool all = std::all_of(differences.begin(), differences.end(), [&](std::string_view x) {
      // From the step on: "FILE (scenario): steps[...]" and "scenario.steps[...]" alike.
      if (const std::size_t at = x.find("steps["); at != std::string_view::npos)
        x.remove_prefix(at);
      return std::any_of(d.differences.begin(), d.differences.end(),
                         [&](const std::string& p) { return matches(p, x); });
    });
    if (all) return &d;
  }
  return nullptr;
}

const Deviation* Profile::covers(RuleId r, std::string_view cause) const {
  const Deviation* any = nullptr;
  for (const Deviation& d : deviations) {
    if (d.rule != r) continue;
    if (d.cause == cause) return &d;
    if (d.cause == "*" && any == nullptr) any = &d;
  }
  return any;
}

Profile parse_profile(std::string_view text, const std::string& source) {
  const Reader in(source);
  const json doc = in.parse(text);
  in.object(doc, "",
            {"name", "description", "max_capture_errors", "fatal_nak_grace_ns",
             "timing_tolerance_ns", "timer_slack_ns", "retire_idle_ns", "model", "udp_source_port",
             "deviations", "vector_deviations"});
  Profile p;
  p.name = in.string(in.required(doc, "", "name"), "name");
  if (p.name.empty()) in.fail("name", "empty");
  if (const json* v = in.optional(doc, "description")) p.description = in.string(*v, "description");
  if (const json* v = in.optional(doc, "max_capture_errors"))
    p.max_capture_errors = in.uint32(*v, "max_capture_errors");
  if (const json* v = in.optional(doc, "fatal_nak_grace_ns"))
    p.fatal_nak_grace_ns = in.uint(*v, "fatal_nak_grace_ns");
  if (const json* v = in.optional(doc, "timing_tolerance_ns"))
    p.timing_tolerance_ns = in.uint(*v, "timing_tolerance_ns");
  if (const json* v = in.optional(doc, "timer_slack_ns"))
    p.timer_slack_ns = in.uint(*v, "timer_slack_ns");
  if (const json* v = in.optional(doc, "retire_idle_ns"))
    p.retire_idle_ns = in.uint(*v, "retire_idle_ns");
  if (const json* v = in.optional(doc, "model")) {
    p.model = in.string(*v, "model");
    if (p.model != "iba" && p.model != "rxe")
      in.fail("model", "must be \"iba\" or \"rxe\" (the golden model's error profile)");
  }
  if (const json* v = in.optional(doc, "udp_source_port")) {
    const std::string policy = in.string(*v, "udp_source_port");
    if (policy == "per_qp_pair")
      p.udp_source_port = Profile::UdpSourcePort::PerQpPair;
    else if (policy != "any")
      in.fail("udp_source_port",
              "must be \"any\" or \"per_qp_pair\" (one source port both ways of a QP pair)");
  }
  if (const json* v = in.optional(doc, "deviations")) {
    in.array(*v, "deviations");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string path = child_path("deviations", i);
      Deviation d = read_deviation(in, (*v)[i], path);
      for (const Deviation& e : p.deviations)
        if (e.rule == d.rule && e.cause == d.cause)
          in.fail(path, "rule \"" + std::string(rule(d.rule).id) + "\" with cause \"" + d.cause +
                            "\" is declared twice");
      p.deviations.push_back(std::move(d));
    }
  }
  if (const json* v = in.optional(doc, "vector_deviations")) {
    in.array(*v, "vector_deviations");
    for (std::size_t i = 0; i < v->size(); ++i)
      p.vector_deviations.push_back(
          read_vector_deviation(in, (*v)[i], child_path("vector_deviations", i)));
  }
  return p;
}

Profile load_profile(const std::string& name_or_path) {
  for (const auto& [name, text] : builtin_profiles())
    if (name == name_or_path)
      return parse_profile(text, "built-in profile " + std::string(name) + " (profiles/" +
                                     std::string(name) + ".json)");
  std::error_code ec;
  if (std::filesystem::is_directory(name_or_path, ec))
    throw ProfileError(name_or_path + ": is a directory, not a profile");
  std::ifstream in(name_or_path, std::ios::binary);
  if (!in) {
    std::string names;
    for (const auto& [name, text] : builtin_profiles())
      names += (names.empty() ? "" : ", ") + std::string(name);
    throw ProfileError(name_or_path + ": no such profile: neither a built-in one (" + names +
                       ") nor a readable file");
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ProfileError(name_or_path + ": cannot read the profile");
  return parse_profile(text.str(), name_or_path);
}

}  // namespace rocecert::check
