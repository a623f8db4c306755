// Strict reading of a JSON document with located errors: every value is read through a Node
// that knows its JSON path, and every problem (wrong type, unknown or duplicate key, missing key,
// out-of-range number, bad enum name) becomes a ScenarioError naming the file and that path.
// Used by the scenario loader; meant for the other JSON inputs of conformance/ too.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keys.h"
#include "rocecert/conformance/scenario.h"

namespace rocecert::conformance::json_input {

using nlohmann::json;

// A JSON value and where it is ("steps[4].wr.sg_list[0]"; "" for the document itself).
struct Node {
  const json* value = nullptr;
  std::string path;

  const json& operator*() const { return *value; }
  const json* operator->() const { return value; }
  Node child(std::string_view key) const;  // the value must exist
  Node child(std::size_t index) const;
};

// "a.b" / "a[3]" / `a["odd key"]`, from a parent path and a key or an index.
std::string join_path(const std::string& parent, std::string_view key);
std::string join_path(const std::string& parent, std::size_t index);
// The path as printed: "(top level)" for the document itself.
std::string display_path(const std::string& path);

// JSON's own name of a value's type ("object", "array", "string", "integer", "number",
// "boolean", "null").
std::string_view type_name(const json& v);

template <typename E>
struct EnumName {
  std::string_view name;
  E value;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& path, const std::string& message) const;
  [[noreturn]] void fail(const Node& n, const std::string& message) const { fail(n.path, message); }

  // Parses `text`; a syntax error, a number beyond a double's range or any other error of the
  // JSON parser is reported with its byte offset (line, column), a duplicate key with its path.
  json parse(std::string_view text) const;

  // The value must be an object whose keys are all in `allowed` ("description" is always
  // allowed and must be a string). Unknown keys are named, with a suggestion when one is close.
  void object(const Node& n, std::initializer_list<std::string_view> allowed) const {
    object(n, std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  void object(const Node& n, std::span<const std::string_view> allowed) const;
  // The same for one kind of scenario object (keys.h); then its required keys, in order, must be
  // present.
  void object(const Node& n, const keys::ObjectKeys& kind) const;
  bool has(const Node& obj, std::string_view key) const;
  std::optional<Node> optional(const Node& obj, std::string_view key) const;
  Node required(const Node& obj, std::string_view key) const;
  // Exactly one of `keys` is present in obj; its name.
  std::string_view one_of(const Node& obj, std::initializer_list<std::string_view> keys) const;
  // At most one of `keys` is present.
  void at_most_one(const Node& obj, std::initializer_list<std::string_view> keys) const;

  std::string string(const Node& n) const;
  bool boolean(const Node& n) const;
  // A JSON integer, or a string holding a decimal or "0x..." hexadecimal integer, in [min, max].
  std::uint64_t integer(const Node& n, std::uint64_t min, std::uint64_t max) const;
  std::uint32_t u32(const Node& n) const {
    return static_cast<std::uint32_t>(integer(n, 0, UINT32_MAX));
  }
  std::uint64_t u64(const Node& n) const { return integer(n, 0, UINT64_MAX); }
  // A JSON number (integer or not) in [min, max].
  double number(const Node& n, double min, double max) const;
  // The elements of an array (min_size elements at least).
  std::vector<Node> array(const Node& n, std::size_t min_size = 0) const;
  // Hex digits, two per byte; spaces, ':' and '_' between bytes are ignored; "0x" prefix allowed.
  std::vector<std::uint8_t> hex(const Node& n) const;

  template <typename E>
  E enumerated(const Node& n, std::span<const EnumName<E>> names, std::string_view what) const {
    const std::string s = string(n);
    for (const auto& e : names)
      if (e.name == s) return e.value;
    std::vector<std::string_view> all;
    for (const auto& e : names) all.push_back(e.name);
    fail(n, bad_name_message(what, s, all));
  }
  // Flags: an array of names (OR-ed), or an integer (the raw value).
  template <typename E>
  std::uint32_t flags(const Node& n, std::span<const EnumName<E>> names,
                      std::string_view what) const {
    if (!n->is_array()) {
      if (n->is_string() && !looks_numeric(n->get_ref<const std::string&>()))
        fail(n, "expected an array of " + std::string(what) + " names or an integer, got a string");
      return u32(n);
    }
    std::uint32_t v = 0;
    for (const Node& e : array(n)) v |= static_cast<std::uint32_t>(enumerated(e, names, what));
    return v;
  }

  static std::string bad_name_message(std::string_view what, std::string_view got,
                                      const std::vector<std::string_view>& expected);
  static bool looks_numeric(const std::string& s);

 private:
  [[noreturn]] void fail_at(std::string_view text, std::size_t offset,
                            const std::string& message) const;

  std::string file_;
};

// The closest of `candidates` to `word` (edit distance at most 2 and below its length), or "".
std::string_view suggest(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace rocecert::conformance::json_input
