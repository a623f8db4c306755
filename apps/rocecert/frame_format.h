// One decoded frame as a line of text (tshark-like) or as a JSON object (the decode --json schema).
#pragma once

#include <fmt/format.h>

#include <cstdint>

#include "rocecert/wire/decode.h"

namespace rocecert::cli {

struct FrameContext {
  std::uint64_t frame = 0;  // 1-based
  std::int64_t ts_ns = 0;   // since the Unix epoch
  std::int64_t first_ts_ns = 0;
  std::uint32_t caplen = 0;
  std::uint32_t len = 0;  // length on the wire
};

// Both append one line, newline included.
void append_text(fmt::memory_buffer& out, const wire::ParsedFrame& p, const FrameContext& c);
void append_json(fmt::memory_buffer& out, const wire::ParsedFrame& p, const FrameContext& c);

}  // namespace rocecert::cli
