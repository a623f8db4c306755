// The Verbs of a real RDMA device through libibverbs (built only where libibverbs is found:
// target rocecert_ibverbs). No unit test: no RDMA device on the build host; it runs against
// Soft-RoCE (rdma_rxe) inside the live guest (docs/live.md, docs/dut.md).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "rocecert/verbs/verbs.h"

namespace rocecert::verbs {

// The device cannot be opened or has no RoCEv2 GID on the port.
class VerbsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Opens `device` ("rxe0", as ibv_devices lists it) on `port`. The GID the vectors' adapter
// stands for is the port's first RoCEv2 GID, an IPv4-mapped one when there is one.
std::unique_ptr<Verbs> open_ibverbs(const std::string& device, std::uint8_t port = 1);

}  // namespace rocecert::verbs
