// The scenario loader: declaring named objects and resolving references to them (docs/scenario.md).
#include <fmt/format.h>

#include <algorithm>

#include "loader_internal.h"

namespace rocecert::conformance::loader {

std::string_view an(ObjectKind k) {
  switch (k) {
    case ObjectKind::ADAPTER:
      return "an adapter";
    case ObjectKind::MR:
      return "an MR";
    case ObjectKind::MW:
      return "an MW";
    case ObjectKind::PD:
      return "a PD";
    case ObjectKind::CQ:
      return "a CQ";
    case ObjectKind::QP:
      return "a QP";
    case ObjectKind::SRQ:
      return "an SRQ";
  }
  return "an object";
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '-'; });
}

namespace {

// The kind of object a step's "as" declares, by its op.
std::optional<ObjectKind> declared_kind(const std::string& op) {
  if (op == "alloc_pd") return ObjectKind::PD;
  if (op == "reg_mr") return ObjectKind::MR;
  if (op == "alloc_mw") return ObjectKind::MW;
  if (op == "create_cq") return ObjectKind::CQ;
  if (op == "create_qp") return ObjectKind::QP;
  if (op == "create_srq") return ObjectKind::SRQ;
  return std::nullopt;
}

}  // namespace

// Names declared by later steps, so that a forward reference gets a precise message.
void Loader::prescan(const std::vector<Node>& steps) {
  for (const Node& s : steps) {
    if (!s->is_object() || !s->contains("op") || !s->contains("as")) continue;
    const auto& op = s->at("op");
    const auto& as = s->at("as");
    if (!op.is_string() || !as.is_string()) continue;
    if (auto kind = declared_kind(op.get<std::string>()))
      later_.emplace(as.get<std::string>(), std::make_pair(*kind, s.path));
  }
}

ObjId Loader::declare(const Node& as, ObjectKind kind, std::size_t adapter_index,
                      std::size_t step) {
  const std::string name = in_.string(as);
  if (!valid_name(name))
    in_.fail(as, fmt::format("\"{}\" is not a valid name (a letter or '_', then letters, "
                             "digits, '_' or '-')",
                             name));
  const ObjId prev = sc_.find(name);
  if (prev != kNoObj)
    in_.fail(as, fmt::format("\"{}\" is already the name of {} ({})", name,
                             an(sc_.objects[prev].kind), sc_.objects[prev].path));
  NamedObject o;
  o.kind = kind;
  o.name = name;
  o.adapter_index = adapter_index;
  o.adapter = kind == ObjectKind::ADAPTER ? static_cast<ObjId>(sc_.objects.size())
                                          : sc_.adapters.at(adapter_index).object;
  o.step = step;
  o.path = as.path;
  sc_.objects.push_back(o);
  return static_cast<ObjId>(sc_.objects.size() - 1);
}

// A reference to an existing object of one of `kinds` by name.
ObjId Loader::ref(const Node& n, std::initializer_list<ObjectKind> kinds) {
  std::string what;
  for (ObjectKind k : kinds) {
    if (!what.empty()) what += " or ";
    what += to_string(k);
  }
  if (!n->is_string()) {
    // "an adapter", "an MR or MW"
    std::string article = std::string(an(*kinds.begin()));
    article = article.substr(0, article.find(' ') + 1);
    in_.fail(n, fmt::format("expected the name of {}{}, got {}", article, what,
                            json_input::type_name(*n)));
  }
  const std::string name = n->get<std::string>();
  const ObjId id = sc_.find(name);
  if (id == kNoObj) {
    auto it = later_.find(name);
    if (it != later_.end() &&
        std::find(kinds.begin(), kinds.end(), it->second.first) != kinds.end())
      in_.fail(n, fmt::format("{} \"{}\" is used before it is created ({})",
                              to_string(it->second.first), name, it->second.second));
    std::vector<std::string_view> candidates;
    for (const NamedObject& o : sc_.objects)
      if (std::find(kinds.begin(), kinds.end(), o.kind) != kinds.end())
        candidates.push_back(o.name);
    const std::string_view close = json_input::suggest(name, candidates);
    if (!close.empty())
      in_.fail(n, fmt::format("unknown {} \"{}\" (did you mean \"{}\"?)", what, name, close));
    in_.fail(n, fmt::format("unknown {} \"{}\"", what, name));
  }
  const NamedObject& o = sc_.objects[id];
  if (std::find(kinds.begin(), kinds.end(), o.kind) == kinds.end()) {
    std::string expected = std::string(an(*kinds.begin()));
    expected = expected.substr(0, expected.find(' ') + 1) + what;
    in_.fail(n, fmt::format("\"{}\" is {}, not {}", name, an(o.kind), expected));
  }
  return id;
}

// An object named by `n` must live on the adapter of `owner`.
void Loader::same_adapter(const Node& n, ObjId id, ObjId owner) {
  const NamedObject& a = sc_.objects[id];
  const NamedObject& b = sc_.objects[owner];
  if (a.adapter_index != b.adapter_index)
    in_.fail(n, fmt::format("{} \"{}\" is on adapter \"{}\", {} \"{}\" on adapter \"{}\"",
                            to_string(a.kind), a.name, adapter_name(a), to_string(b.kind), b.name,
                            adapter_name(b)));
}

const std::string& Loader::adapter_name(const NamedObject& o) const {
  return sc_.adapters.at(o.adapter_index).config.name;
}

KeyRef Loader::key_ref(const Node& n, std::initializer_list<ObjectKind> kinds) {
  KeyRef k;
  if (n->is_string() && !Reader::looks_numeric(n->get<std::string>())) {
    k.object = ref(n, kinds);
  } else {
    k.value = in_.u32(n);
  }
  return k;
}

QpnRef Loader::qpn_ref(const Node& n) {
  QpnRef q;
  if (n->is_string() && !Reader::looks_numeric(n->get<std::string>())) {
    q.qp = ref(n, {ObjectKind::QP});
  } else {
    q.value = static_cast<std::uint32_t>(in_.integer(n, 0, 0xFFFFFF));
  }
  return q;
}

}  // namespace rocecert::conformance::loader
