// The table of mutation kinds (rocecert/mutate/mutations.def) and its look-ups.
#include <fmt/format.h>

#include "rocecert/mutate/mutate.h"

namespace rocecert::mutate {

const std::array<KindInfo, kKindCount>& kinds() {
  static const std::array<KindInfo, kKindCount> table = {{
#define ROCECERT_MUTATION(name, rule, description) {Kind::name, #name, rule, description},
#include "rocecert/mutate/mutations.def"
#undef ROCECERT_MUTATION
  }};
  return table;
}

const KindInfo& info(Kind k) {
  return kinds()[static_cast<std::size_t>(k)];
}

std::optional<Kind> find_kind(std::string_view name) {
  for (const KindInfo& k : kinds()) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

std::string to_string(const Change& c) {
  if (c.field == "inserted") return fmt::format("frame {}: inserted: {}", c.frame, c.to);
  if (c.field == "removed") {
    return fmt::format("before frame {}: removed {}: {}", c.frame, c.from, c.to);
  }
  return fmt::format("frame {}: {} {} -> {}", c.frame, c.field, c.from, c.to);
}

}  // namespace rocecert::mutate
