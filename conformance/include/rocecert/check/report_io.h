// Writers (and a reader, for `rocecert merge`) of the check report. docs/json.md §2 is the JSON
// contract; the JUnit file has one test case per rule per connection.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rocecert/check/report.h"

namespace rocecert::check {

struct TextOptions {
  bool verbose = false;  // every violation, not only the first of each rule per connection
};

void write_text(const Report& r, std::ostream& out, const TextOptions& opts = {});
void write_json(const Report& r, std::ostream& out);
void write_junit(const Report& r, std::ostream& out);

class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Reads a report written by write_json; errors name `source` and the byte offset or key.
Report read_json(std::string_view text, const std::string& source);

// Text as XML 1.0 character data (attribute = false) or an attribute value, as the JUnit
// writer escapes it (also for `rocecert vectors run --junit`).
std::string xml_escape(std::string_view s, bool attribute = true);

}  // namespace rocecert::check
