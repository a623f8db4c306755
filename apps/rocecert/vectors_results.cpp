#include "vectors_results.h"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

namespace rocecert::cli {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The error profile the vector's adapters declare ("iba", "rxe"), when they declare one.
std::optional<std::string> declared_error_profile(const vectors::Loaded& l) {
  for (const conformance::AdapterSpec& a : l.scenario.adapters) {
    const nlohmann::json j = nlohmann::json::parse(a.json, nullptr, false);
    if (j.is_object() && j.contains("profile") && j["profile"].is_object() &&
        j["profile"].contains("error_profile") && j["profile"]["error_profile"].is_string())
      return lower(j["profile"]["error_profile"].get<std::string>());
  }
  return std::nullopt;
}

}  // namespace

void apply_profile(vectors::Result& r, const vectors::Loaded& l, const check::Profile& p) {
  if (r.verdict != vectors::Verdict::FAIL) return;
  if (const std::optional<std::string> ep = declared_error_profile(l); ep && *ep != p.model) {
    r.verdict = vectors::Verdict::DEVIATION;
    r.declared = fmt::format(
        "error_profile: the vector expects the {} error profile, profile {} follows {}'s; "
        "its twin with that error profile judges this error class (docs/errors.md)",
        *ep, p.name, p.model);
    return;
  }
  if (const check::VectorDeviation* d = p.covers_vector(l.vector.id, r.differences)) {
    r.verdict = vectors::Verdict::DEVIATION;
    r.declared = fmt::format("{}: {} ({})", d->cause, d->justification, d->reference);
  }
}

std::optional<check::Profile> load_profile(const std::string& name_or_path) {
  if (name_or_path.empty()) return std::nullopt;
  try {
    return check::load_profile(name_or_path);
  } catch (const check::ProfileError& e) {
    throw vectors::VectorError(fmt::format("--profile: {}", e.what()));
  }
}

void print_result(const vectors::Result& r, bool quiet) {
  if (quiet && r.verdict != vectors::Verdict::FAIL) return;
  fmt::print("{:<11} {}\n", vectors::to_string(r.verdict), r.id);
  if (!r.declared.empty()) fmt::print("            declared by the profile: {}\n", r.declared);
  for (const std::string& d : r.differences) fmt::print("            {}\n", d);
}

}  // namespace rocecert::cli
