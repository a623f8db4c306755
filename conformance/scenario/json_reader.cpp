#include "json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace rocecert::conformance::json_input {

namespace {

bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '$';
  });
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i != 0) out += ", ";
    out += names[i];
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The first byte of the JSON token whose last byte is at `last` (a string or a bare word).
std::size_t token_start(std::string_view text, std::size_t last) {
  const auto word = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '-' || c == '+';
  };
  if (text[last] == '"') {
    for (std::size_t i = last; i > 0; --i) {
      if (text[i - 1] == '"' && (i < 2 || text[i - 2] != '\\')) return i - 1;
    }
    return last;
  }
  std::size_t i = last;
  while (i > 0 && word(text[last]) && word(text[i - 1])) --i;
  return i;
}

// Deepest nesting of objects and arrays a document may have. A scenario needs a handful of
// levels; the limit keeps the paths tracked below (one per open container, each as long as the
// path to it) from growing quadratically with the input: 60 kB of '[' would need gigabytes.
constexpr std::size_t kMaxNesting = 64;

// Tracks the JSON path while nlohmann's parser runs, to name duplicate keys (the DOM keeps
// only the last value of a repeated key, silently), and bounds the nesting depth.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const Reader& reader) : reader_(reader) {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        std::string path = element_path();
        if (frames_.size() >= kMaxNesting)
          reader_.fail(path, "objects and arrays nested deeper than " +
                                 std::to_string(kMaxNesting) + " levels");
        const bool is_array = event == json::parse_event_t::array_start;
        frames_.push_back(Frame{std::move(path), is_array, 0, {}, {}});
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        const std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second)
          reader_.fail(join_path(f.path, key), "duplicate key \"" + key + "\"");
        f.key = key;
        break;
      }
      case json::parse_event_t::value:
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().count;
        break;
    }
    return true;
  }

 private:
  struct Frame {
    std::string path;
    bool is_array = false;
    std::size_t count = 0;  // arrays: elements begun
    std::string key;        // objects: the current key
    std::set<std::string> keys;
  };
  // Path of the container that starts now, and count it as an element of its parent array.
  std::string element_path() {
    if (frames_.empty()) return "";
    Frame& parent = frames_.back();
    if (parent.is_array) return join_path(parent.path, parent.count++);
    return join_path(parent.path, parent.key);
  }

  const Reader& reader_;
  std::vector<Frame> frames_;
};

// Where the parser stops with an error: the characters read up to the end of the offending
// token. Used for the errors nlohmann reports without a position.
class ErrorPosition : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    position_ = position;
    return false;
  }
  std::size_t position() const { return position_; }

 private:
  std::size_t position_ = 0;
};

// The parser quotes the bytes it last read, invalid UTF-8 included: show bytes above 0x7f as
// "\\xNN" so that the message stays valid text wherever it is printed or stored.
std::string ascii(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", b);
    }
  }
  return out;
}

std::size_t error_position(std::string_view text) {
  ErrorPosition sax;
  (void)json::sax_parse(text.begin(), text.end(), &sax);
  return sax.position();
}

}  // namespace

Node Node::child(std::string_view key) const {
  return Node{&value->at(std::string(key)), join_path(path, key)};
}
Node Node::child(std::size_t index) const {
  return Node{&value->at(index), join_path(path, index)};
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (is_plain_key(key)) return parent.empty() ? std::string(key) : parent + "." + std::string(key);
  return parent + "[" + json(std::string(key)).dump() + "]";
}
std::string join_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}
std::string display_path(const std::string& path) {
  return path.empty() ? "(top level)" : path;
}

std::string_view type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::null:
      return "null";
    case json::value_t::binary:
    case json::value_t::discarded:
      break;
  }
  return "value";
}

std::string_view suggest(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_d = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d && d < word.size()) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

void Reader::fail(const std::string& path, const std::string& message) const {
  throw ScenarioError(file_, display_path(path), message);
}

json Reader::parse(std::string_view text) const {
  try {
    DuplicateKeyCheck check(*this);
    return json::parse(text.begin(), text.end(), json::parser_callback_t(std::ref(check)));
  } catch (const json::parse_error& e) {
    // e.byte counts the characters read, the offending one included: for an unexpected token
    // that is its last byte, so step back to its first, where a reader looks for it.
    std::size_t offset = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
    if (std::string_view(e.what()).find(" - unexpected ") != std::string_view::npos &&
        offset < text.size())
      offset = token_start(text, offset);
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5:
    // syntax error while parsing value - invalid literal; last read: 'tru}'". Keep the reason.
    std::string what = e.what();
    const std::size_t col = what.find("column ");
    const std::size_t colon = what.find(": ", col == std::string::npos ? 0 : col);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    fail_at(text, offset, "invalid JSON: " + ascii(what));
  } catch (const json::exception& e) {
    // Anything else the parser throws carries no position (out_of_range.406: a number beyond
    // a double's range, like 1e400): find it by parsing again, event by event, up to the error.
    const std::size_t end = error_position(text);
    const std::size_t offset = end == 0 ? 0 : token_start(text, std::min(end, text.size()) - 1);
    if (e.id == 406) {
      const std::size_t token_end = std::min(end, text.size());
      fail_at(text, offset,
              fmt::format("invalid JSON: the number {} is beyond the range of a double",
                          text.substr(offset, token_end - offset)));
    }
    // "[json.exception.out_of_range.NNN] reason": keep the reason.
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    fail_at(text, offset, "invalid JSON: " + what);
  }
}

void Reader::fail_at(std::string_view text, std::size_t offset, const std::string& message) const {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  throw ScenarioError(
      file_, fmt::format("byte offset {} (line {}, column {})", offset, line, column), message);
}

void Reader::object(const Node& n, const keys::ObjectKeys& kind) const {
  object(n, kind.allowed);
  for (std::string_view key : kind.required) (void)required(n, key);
}

void Reader::object(const Node& n, std::span<const std::string_view> allowed) const {
  if (!n->is_object()) fail(n, fmt::format("expected an object, got {}", type_name(*n)));
  const std::vector<std::string_view> names(allowed.begin(), allowed.end());
  for (auto it = n->begin(); it != n->end(); ++it) {
    const std::string& key = it.key();
    if (key == "description") {
      if (!it->is_string()) fail(join_path(n.path, key), "expected a string");
      continue;
    }
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const std::string_view close = suggest(key, names);
    if (!close.empty())
      fail(join_path(n.path, key),
           fmt::format("unknown key \"{}\" (did you mean \"{}\"?)", key, close));
    fail(join_path(n.path, key),
         fmt::format("unknown key \"{}\" (expected one of: {})", key, list(names)));
  }
}

bool Reader::has(const Node& obj, std::string_view key) const {
  return obj->contains(std::string(key));
}

std::optional<Node> Reader::optional(const Node& obj, std::string_view key) const {
  if (!has(obj, key)) return std::nullopt;
  return obj.child(key);
}

Node Reader::required(const Node& obj, std::string_view key) const {
  if (!has(obj, key)) fail(obj, fmt::format("missing required key \"{}\"", key));
  return obj.child(key);
}

std::string_view Reader::one_of(const Node& obj,
                                std::initializer_list<std::string_view> keys) const {
  std::string_view found;
  for (std::string_view k : keys) {
    if (!has(obj, k)) continue;
    if (!found.empty())
      fail(join_path(obj.path, k), fmt::format("\"{}\" and \"{}\" exclude each other", found, k));
    found = k;
  }
  if (found.empty()) {
    std::vector<std::string_view> v(keys);
    fail(obj, fmt::format("needs one of: {}", list(v)));
  }
  return found;
}

void Reader::at_most_one(const Node& obj, std::initializer_list<std::string_view> keys) const {
  std::string_view found;
  for (std::string_view k : keys) {
    if (!has(obj, k)) continue;
    if (!found.empty())
      fail(join_path(obj.path, k), fmt::format("\"{}\" and \"{}\" exclude each other", found, k));
    found = k;
  }
}

std::string Reader::string(const Node& n) const {
  if (!n->is_string()) fail(n, fmt::format("expected a string, got {}", type_name(*n)));
  return n->get<std::string>();
}

bool Reader::boolean(const Node& n) const {
  if (!n->is_boolean()) fail(n, fmt::format("expected true or false, got {}", type_name(*n)));
  return n->get<bool>();
}

bool Reader::looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return true;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t Reader::integer(const Node& n, std::uint64_t min, std::uint64_t max) const {
  std::uint64_t v = 0;
  std::string shown;
  if (n->is_number_unsigned()) {
    v = n->get<std::uint64_t>();
    shown = std::to_string(v);
  } else if (n->is_number_integer()) {
    fail(n, fmt::format("{} is negative; expected {}..{}", n->get<std::int64_t>(), min, max));
  } else if (n->is_number_float()) {
    fail(n,
         fmt::format("expected an integer, got {} (write values above 2^53 as \"0x...\" strings)",
                     n->dump()));
  } else if (n->is_string()) {
    const std::string& s = n->get_ref<const std::string&>();
    shown = "\"" + s + "\"";
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char* first = s.data() + (hex ? 2 : 0);
    const char* last = s.data() + s.size();
    if (first == last) fail(n, fmt::format("expected an integer, got {}", shown));
    // Digits only: from_chars takes no sign, no space and no prefix of its own.
    const auto [end, ec] = std::from_chars(first, last, v, hex ? 16 : 10);
    if (ec == std::errc::result_out_of_range)
      fail(n, fmt::format("{} does not fit in 64 bits", shown));
    if (ec != std::errc{} || end != last)
      fail(n, fmt::format("expected an integer (decimal or \"0x...\"), got {}", shown));
  } else {
    fail(n, fmt::format("expected an integer, got {}", type_name(*n)));
  }
  if (v < min || v > max) {
    if (max > 0xFFFF) fail(n, fmt::format("{} is out of range ({:#x}..{:#x})", shown, min, max));
    fail(n, fmt::format("{} is out of range ({}..{})", shown, min, max));
  }
  return v;
}

double Reader::number(const Node& n, double min, double max) const {
  if (!n->is_number()) fail(n, fmt::format("expected a number, got {}", type_name(*n)));
  const double v = n->get<double>();
  if (!(v >= min && v <= max) || !std::isfinite(v))
    fail(n, fmt::format("{} is out of range ({}..{})", n->dump(), min, max));
  return v;
}

std::vector<Node> Reader::array(const Node& n, std::size_t min_size) const {
  if (!n->is_array()) fail(n, fmt::format("expected an array, got {}", type_name(*n)));
  if (n->size() < min_size)
    fail(n, fmt::format("expected at least {} element{}", min_size, min_size == 1 ? "" : "s"));
  std::vector<Node> out;
  out.reserve(n->size());
  for (std::size_t i = 0; i < n->size(); ++i) out.push_back(n.child(i));
  return out;
}

std::vector<std::uint8_t> Reader::hex(const Node& n) const {
  const std::string s = string(n);
  std::vector<std::uint8_t> out;
  std::size_t i = 0;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) i = 2;
  int high = -1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ' || c == ':' || c == '_') {
      if (high >= 0) fail(n, fmt::format("odd number of hex digits before position {}", i));
      continue;
    }
    const int d = hex_digit(c);
    if (d < 0) fail(n, fmt::format("'{}' at position {} is not a hex digit", c, i));
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<std::uint8_t>((high << 4) | d));
      high = -1;
    }
  }
  if (high >= 0) fail(n, "odd number of hex digits");
  return out;
}

std::string Reader::bad_name_message(std::string_view what, std::string_view got,
                                     const std::vector<std::string_view>& expected) {
  const std::string_view close = suggest(got, expected);
  if (!close.empty())
    return fmt::format("unknown {} \"{}\" (did you mean \"{}\"?)", what, got, close);
  return fmt::format("unknown {} \"{}\" (expected one of: {})", what, got, list(expected));
}

}  // namespace rocecert::conformance::json_input
