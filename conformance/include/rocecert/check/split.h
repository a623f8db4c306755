// `rocecert split`: cuts a capture into N captures by connection, so that an existing scheduler
// (a Slurm job array, GNU parallel) can check the parts side by side and `rocecert merge` can
// join their reports. Every part is judged as the whole capture would be: the flows that must
// be seen together (Checker::flow_groups) always land in the same part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocecert::check {

struct SplitPart {
  std::string file;
  std::uint64_t frames = 0;
  std::uint64_t groups = 0;  // connection groups in this part
};

// Reads `capture` twice (once to reconstruct its connections, once to write), writes
// `<out_prefix>-<k>-of-<n>.pcap` for k = 1..n (a part may be empty) and returns them. Frames that
// belong to no connection (not RoCEv2, malformed before the BTH) go to the first part. Throws
// pcap::CaptureError for an unreadable capture, std::runtime_error for an unwritable part.
std::vector<SplitPart> split_capture(const std::string& capture, unsigned parts,
                                     const std::string& out_prefix);

}  // namespace rocecert::check
