// The verbs a vector's steps need, as one abstract device (docs/dut.md, "The verbs DUT"): the
// seam between the Player, which plays a vector's steps, and a device reached through
// libibverbs (ibverbs.h), or the scripted fake the tests use (fake_verbs.h).
//
// Every number uses libibverbs' numbering, as the model's types do (QP states and types, the
// ibv_qp_attr_mask bits, access flags, work request and completion opcodes, completion status,
// event types), so a device over libibverbs passes them through. Handles (PD, MR, MW, CQ, SRQ)
// are the device's own small numbers; a QP is named by its QP number. Verbs return 0 or an errno
// value, as libibverbs does (IBA Vol. 1 §11.2: a verb that fails returns an error and changes
// nothing).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/mem/keys.h"
#include "rocecert/mem/region.h"
#include "rocecert/qp/attr.h"
#include "rocecert/qp/types.h"
#include "rocecert/tx/work_request.h"

namespace rocecert::verbs {

// What a device offers (ibv_query_device, ibv_query_port; the Query HCA verb, IBA Vol. 1 §11.2,
// sub-clause not checked against the IBTA text): the
// limits and optional features a vector may need. The defaults describe no device: the real one
// fills every field, the fake takes what a test sets.
struct DeviceCaps {
  std::string name;                       // "rxe0"
  std::uint64_t max_mr_size = 0;          // the largest region reg_mr accepts
  std::uint32_t max_qp = 0;               // QPs
  std::uint32_t max_qp_wr = 0;            // work requests per queue
  std::uint32_t max_sge = 0;              // scatter/gather elements per work request
  std::uint32_t max_cq = 0;               // CQs
  std::uint32_t max_cqe = 0;              // entries per CQ
  std::uint32_t max_mr = 0;               // MRs
  std::uint32_t max_pd = 0;               // PDs
  std::uint32_t max_qp_rd_atom = 0;       // responder resources (max_dest_rd_atomic)
  std::uint32_t max_qp_init_rd_atom = 0;  // initiator depth (max_rd_atomic)
  std::uint32_t max_srq = 0;              // 0: no shared receive queues
  std::uint32_t max_srq_wr = 0;
  std::uint32_t max_srq_sge = 0;
  std::uint32_t max_mw = 0;              // 0 with mw_type1 and mw_type2 false: no memory windows
  bool atomic = false;                   // atomic_cap is not IBV_ATOMIC_NONE (atomics are optional)
  bool mw_type1 = false;                 // IBV_DEVICE_MEM_WINDOW
  bool mw_type2 = false;                 // IBV_DEVICE_MEM_WINDOW_TYPE_2A or _2B (IBA Vol. 1 §10.6)
  bool mem_mgt_extensions = false;       // SEND_WITH_INV, LOCAL_INV (IBA Vol. 1 §10.6)
  bool rc = true, uc = true, ud = true;  // transports the device has QPs of
  bool flush = false, atomic_write = false;        // the FLUSH and ATOMIC WRITE operations
  qp::PathMtu active_mtu = qp::PathMtu::MTU_1024;  // ibv_port_attr.active_mtu of the port used
};

// The port a device plays its adapter on: the vector's port 1, GID index 0 and GIDs are this
// port's, this GID index and this GID (ibv_query_gid; a RoCEv2 entry, IBA Vol. 1 Annex A17.4).
struct PortInfo {
  std::uint8_t port_num = 1;
  std::uint8_t gid_index = 0;
  std::array<std::uint8_t, 16> gid{};  // IPv4 as ::ffff:a.b.c.d
};

// A created object: its handle, or the errno the device refused it with.
struct Made {
  int err = 0;
  std::uint32_t handle = 0;
  bool ok() const { return err == 0; }
};
struct MadeMr {
  int err = 0;
  std::uint32_t handle = 0;
  std::uint32_t lkey = 0, rkey = 0;
  std::uint64_t iova = 0;  // where the region starts in the keys' address space
  bool ok() const { return err == 0; }
};
struct MadeMw {
  int err = 0;
  std::uint32_t handle = 0;
  std::uint32_t rkey = 0;
  bool ok() const { return err == 0; }
};

// ibv_qp_init_attr with handles for the CQs and the SRQ.
struct QpInit {
  qp::QpType type = qp::QpType::RC;
  std::uint32_t pd = 0;
  std::uint32_t send_cq = 0, recv_cq = 0;
  std::optional<std::uint32_t> srq;
  qp::QpCaps caps;
  bool sq_sig_all = false;
};

struct Sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
};

// One asynchronous event (ibv_get_async_event): a QP's by its QP number, a CQ's or an SRQ's by
// its handle.
struct AsyncEvent {
  errors::AsyncEventType type = errors::AsyncEventType::NONE;
  std::uint32_t element = 0;
};

class Verbs {
 public:
  virtual ~Verbs() = default;

  virtual DeviceCaps query_device() = 0;
  virtual PortInfo port() = 0;

  // Time as the event log gives it (t_ns), and a pause that lets the device work: a vector's
  // "run" step is polls and pauses until nothing happens any more.
  virtual std::uint64_t now_ns() = 0;
  virtual void pause(std::uint64_t ns) = 0;

  // Host memory for regions: `length` bytes, zeroed, at a host address the device may register;
  // 0 when there is not that much. It lives as long as the Verbs.
  virtual std::uint64_t alloc_memory(std::uint64_t length) = 0;
  virtual void write_memory(std::uint64_t addr, std::span<const std::uint8_t> bytes) = 0;
  virtual std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t length) = 0;

  virtual Made alloc_pd() = 0;
  // `iova`: ibv_reg_mr_iova2; absent: the keys address the region by its host address.
  virtual MadeMr reg_mr(std::uint32_t pd, std::uint64_t addr, std::uint64_t length,
                        mem::Access access, std::optional<std::uint64_t> iova) = 0;
  virtual int dereg_mr(std::uint32_t mr) = 0;
  virtual MadeMw alloc_mw(std::uint32_t pd, mem::MwType type) = 0;
  // A window's current rkey: a BIND_MW gives it a new one (IBA Vol. 1 §10.6; rxe_do_bind_mw).
  virtual std::uint32_t mw_rkey(std::uint32_t mw) = 0;
  virtual Made create_cq(std::uint32_t cqe) = 0;
  // The entries the device gave the CQ: at least the cqe asked (ibv_create_cq(3); rxe rounds
  // up to a power of two minus one).
  virtual std::uint32_t cq_size(std::uint32_t cq) = 0;
  virtual Made create_srq(std::uint32_t pd, std::uint32_t max_wr, std::uint32_t max_sge) = 0;
  // handle: the QP number.
  virtual Made create_qp(const QpInit& init) = 0;
  virtual int modify_qp(std::uint32_t qpn, const qp::QpAttr& attr, qp::AttrMask mask) = 0;
  virtual std::optional<qp::QpState> query_qp_state(std::uint32_t qpn) = 0;
  // `wr` with the device's numbers: keys and addresses translated, sg_list in `sges`; BIND_MW
  // names its window by handle (bind_mw_handle) and its region by lkey (bind_mr_lkey); `ah`: UD.
  virtual int post_send(std::uint32_t qpn, const tx::SendWr& wr, std::span<const Sge> sges,
                        const std::optional<qp::AddressVector>& ah) = 0;
  virtual int post_recv(std::uint32_t qpn, std::uint64_t wr_id, std::span<const Sge> sges) = 0;
  virtual int post_srq_recv(std::uint32_t srq, std::uint64_t wr_id, std::span<const Sge> sges) = 0;
  virtual int arm_srq_limit(std::uint32_t srq, std::uint32_t limit) = 0;
  // Up to `max` completions appended to `out`; their count, or a negative errno.
  virtual int poll_cq(std::uint32_t cq, std::size_t max, std::vector<cq::Wc>& out) = 0;
  // The next asynchronous event, without waiting; nullopt when there is none.
  virtual std::optional<AsyncEvent> get_async_event() = 0;
};

}  // namespace rocecert::verbs
