// Strict reading of the checker's JSON inputs (profiles, reports for merging) with located
// errors: a syntax error names the byte offset (line, column), every other problem the JSON
// path of the value ("deviations[2].rule"). `E` is the exception thrown (ProfileError,
// ReportError); its message starts with the source's name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocecert::check::json_in {

using nlohmann::json;

// "byte offset 12 (line 2, column 5)".
inline std::string location(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "byte offset " + std::to_string(offset) + " (line " + std::to_string(line) + ", column " +
         std::to_string(column) + ")";
}

inline std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}
inline std::string child_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

// The parser's message without its "[json.exception.parse_error.101] " prefix, bytes outside
// printable ASCII shown as \xNN so that a message stays one readable line.
inline std::string printable(std::string_view what) {
  const std::size_t close = what.find("] ");
  if (what.rfind("[json.exception.", 0) == 0 && close != std::string_view::npos)
    what.remove_prefix(close + 2);
  std::string out;
  for (const char ch : what) {
    const auto b = static_cast<unsigned char>(ch);
    if (b >= 0x20 && b < 0x7f) {
      out += ch;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    }
  }
  return out;
}

template <typename E>
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw E(source_ + ": " + (path.empty() ? "(top level)" : path) + ": " + message);
  }

  // Parses `text`; a syntax error names its byte offset, a key given twice in one object its
  // path (the parser would silently keep the last).
  json parse(std::string_view text) const {
    std::vector<Level> levels;
    const json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          // The paths kept per level grow with the square of the depth: refuse what no
          // profile or report needs.
          if (levels.size() >= kMaxDepth)
            fail(path_of(levels), "nested deeper than " + std::to_string(kMaxDepth) + " levels");
          levels.push_back(
              Level{event == json::parse_event_t::object_start, path_of(levels), {}, 0});
          break;
        case json::parse_event_t::key: {
          Level& top = levels.back();
          const std::string key = parsed.get<std::string>();
          for (const std::string& k : top.keys)
            if (k == key) fail(child_path(top.path, key), "key given twice");
          top.keys.push_back(key);
          break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
          levels.pop_back();
          if (!levels.empty() && !levels.back().object) ++levels.back().index;
          break;
        case json::parse_event_t::value:
          if (!levels.empty() && !levels.back().object) ++levels.back().index;
          break;
      }
      return true;
    };
    try {
      return json::parse(text, track);
    } catch (const json::parse_error& e) {
      // e.byte counts the bytes read, the offending one included.
      const std::size_t offset = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
      throw E(source_ + ": " + location(text, offset) + ": invalid JSON: " + printable(e.what()));
    } catch (const json::exception& e) {
      throw E(source_ + ": invalid JSON: " + printable(e.what()));
    }
  }

  // The value at `path` must be an object whose keys are all in `allowed`.
  void object(const json& v, const std::string& path,
              std::initializer_list<std::string_view> allowed) const {
    if (!v.is_object()) fail(path, "expected an object, got " + type_name(v));
    for (const auto& [key, value] : v.items()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || a == key;
      if (!known) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(child_path(path, key), "unknown key (known: " + list + ")");
      }
    }
  }

  const json& required(const json& obj, const std::string& path, std::string_view key) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail(path, "missing key \"" + std::string(key) + "\"");
    return *it;
  }
  const json* optional(const json& obj, std::string_view key) const {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + type_name(v));
    return v.get<std::string>();
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "expected true or false, got " + type_name(v));
    return v.get<bool>();
  }
  // A non-negative integer no larger than `max`.
  std::uint64_t uint(const json& v, const std::string& path,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    if (v.is_number_unsigned()) {
      const auto n = v.get<std::uint64_t>();
      if (n > max)
        fail(path, std::to_string(n) + " is out of range (at most " + std::to_string(max) + ")");
      return n;
    }
    if (v.is_number_integer()) fail(path, "expected a non-negative integer, got " + v.dump());
    fail(path, "expected an integer, got " + type_name(v));
  }
  std::uint32_t uint32(const json& v, const std::string& path) const {
    return static_cast<std::uint32_t>(uint(v, path, std::numeric_limits<std::uint32_t>::max()));
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected an array, got " + type_name(v));
    return v;
  }

  static std::string type_name(const json& v) {
    switch (v.type()) {
      case json::value_t::object:
        return "an object";
      case json::value_t::array:
        return "an array";
      case json::value_t::string:
        return "a string";
      case json::value_t::boolean:
        return "a boolean";
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
        return "an integer";
      case json::value_t::number_float:
        return "a number";
      case json::value_t::null:
        return "null";
      case json::value_t::binary:
      case json::value_t::discarded:
        break;
    }
    return "a value";
  }

 private:
  static constexpr std::size_t kMaxDepth = 32;
  struct Level {
    bool object;
    std::string path;               // this container's path
    std::vector<std::string> keys;  // an object's keys so far
    std::size_t index;              // an array's elements so far
  };
  // The path of the value the parser is about to read inside `levels`.
  static std::string path_of(const std::vector<Level>& levels) {
    if (levels.empty()) return "";
    const Level& top = levels.back();
    return top.object ? child_path(top.path, top.keys.empty() ? "" : top.keys.back())
                      : child_path(top.path, top.index);
  }

  std::string source_;
};

}  // namespace rocecert::check::json_in
