// libFuzzer target for `rocecert check --events` (check::parse_events): arbitrary text as a
// JSON-lines log. Properties, besides no crash, no undefined behaviour and no leak: it either
// parses or throws EventsError naming the source, a line within the text and a byte offset
// inside it; every parsed event comes from a line of the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rocecert/check/events.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  try {
    const rocecert::check::Events ev = rocecert::check::parse_events(text, "fuzz.jsonl");
    for (const rocecert::check::Event& e : ev.events)
      if (e.line < 1 || e.line > lines) __builtin_trap();
  } catch (const rocecert::check::EventsError& e) {
    if (e.file() != "fuzz.jsonl" || e.line() < 1 || e.line() > lines || e.offset() > size)
      __builtin_trap();
  }
  return 0;
}
