/* rocecert device-under-test plugin interface, version 1 (docs/dut.md).
 *
 * `rocecert vectors run DIR --dut lib:PATH.so` loads a shared object that exports the functions
 * below and plays one adapter of every vector with it (--dut-as, default "A"); the golden model
 * plays the others, joined to the plugin by the vector's link. The plugin is the device: an RTL
 * simulation behind DPI-C or Verilator, a driver wrapped around libibverbs, a software stack.
 *
 * The header is C99, stands alone, and is all a plugin needs: no rocecert library is linked into
 * it. Numbering is libibverbs' throughout (enum ibv_wr_opcode, ibv_wc_status, ibv_wc_opcode,
 * ibv_qp_state, ibv_qp_type, ibv_qp_attr_mask, ibv_access_flags, ibv_event_type, ibv_mtu), so a
 * driver wrapper passes values through.
 *
 * Conventions.
 *  - Every function taking `dut` receives the pointer rocecert_dut_create returned.
 *  - Verbs return 0 or a positive errno value (EINVAL, ENOMEM, ...), as libibverbs does. The
 *    runner compares errors at errno level with a plugin: a vector expecting INVALID_STATE
 *    (EINVAL) passes on any EINVAL.
 *  - Handles (PD, CQ, SRQ, MW) are 32-bit numbers the plugin chooses; QPs are named by their QPN,
 *    MRs by their keys.
 *  - Memory: the vector addresses the device's host memory by 64-bit host addresses; the runner
 *    writes an MR's initial contents and reads memory expectations with mem_write / mem_read.
 *  - Wire: frames are whole Ethernet frames without FCS (RoCEv2: Ethernet / IPv4 or IPv6 /
 *    UDP 4791 / BTH ... / ICRC). The runner hands arriving frames to rocecert_dut_receive; the
 *    plugin sends by calling the `emit` callback of its config, from inside any of its
 *    functions (emit copies the bytes before it returns).
 *  - Time: simulated nanoseconds, starting at 0. rocecert_dut_advance(now) runs everything the
 *    device has due at or before `now`, work queued for `now` included. The runner calls it
 *    before a call when simulated time has moved since the last advance (calls at one instant,
 *    such as a run of verbs, follow each other without an advance between them, as host calls
 *    do), and at the time rocecert_dut_next_event_ns names: when the device next wants to run on
 *    its own (a timer, a doorbell, a packet waiting for the wire), `now` or later. A device with
 *    nothing pending answers ROCECERT_DUT_NEVER.
 *  - Threads: the runner calls a plugin from one thread at a time.
 *  - Strings and buffers the runner passes (the config's strings, work requests, SGE lists) are
 *    valid during the call only: copy what you keep.
 *
 *  - Wire-only runs (--wire-only; config.wire_only is 1), for a device whose numbers are set from
 *    outside (an engine configured through registers): the model plays the adapter as well and
 *    keeps the vector's traffic going, so the device receives exactly the vector's frames. The
 *    device gets the same verbs with the model's numbers imposed: on entry *qpn (create_qp),
 *    *lkey and *rkey (reg_mr) and *rkey (alloc_mw) hold what the model gave, and the device must
 *    use them. The frames it emits do not reach the peer: they are compared, in order, with the
 *    frames the model sent as that adapter. Completions and QP states are not read.
 *
 * Required: rocecert_dut_abi_version, _create, _destroy, _receive, _advance, _next_event_ns.
 * Every other function is optional: a vector whose steps need a function the plugin does not
 * export is UNSUPPORTED. rocecert_dut_capabilities names what the device offers ("RC,UC,ATOMIC");
 * a vector needing a capability it does not list is UNSUPPORTED too.
 */
#ifndef ROCECERT_DUT_H
#define ROCECERT_DUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCECERT_DUT_ABI_VERSION 1u
#define ROCECERT_DUT_NEVER UINT64_MAX

typedef struct rocecert_dut rocecert_dut; /* the plugin's own, opaque to the runner */

/* Sends one frame on the device's port. `host` is rocecert_dut_config.host. */
typedef void (*rocecert_dut_emit_fn)(void* host, const uint8_t* frame, size_t len);

struct rocecert_dut_config {
  uint32_t abi_version; /* ROCECERT_DUT_ABI_VERSION of the runner */
  const char* name;     /* the adapter's name in the vector ("A") */
  uint8_t mac[6];
  uint8_t gid[16];   /* IPv4 as ::ffff:a.b.c.d, else IPv6; the port's only GID (index 0) */
  uint32_t port_mtu; /* active MTU in bytes: 256 .. 4096 */
  uint64_t seed;     /* the run's seed for this adapter: key bytes, if the device draws any */
  const char* adapter_json; /* the vector's declaration of this adapter (docs/scenario.md), for
                               a plugin that models profiles; may be ignored */
  const char* args;         /* what followed the path in --dut lib:PATH.so,ARGS; "" if none */
  rocecert_dut_emit_fn emit;
  void* host;
  uint32_t wire_only; /* 1: a wire-only run (above): keys and QP numbers are imposed */
  uint32_t reserved;
};

struct rocecert_dut_sge {
  uint64_t addr;
  uint32_t length;
  uint32_t lkey;
};

/* An address vector: RoCEv2's part of ibv_ah_attr (IBA Vol. 1 Annex A17.4.5.2). */
struct rocecert_dut_av {
  uint8_t dgid[16]; /* IPv4 as ::ffff:a.b.c.d */
  uint8_t dmac[6];
  uint8_t sgid_index;
  uint8_t hop_limit;
  uint8_t traffic_class;
  uint8_t reserved[3];
  uint32_t flow_label;
  uint16_t udp_sport; /* 0: the device chooses */
  uint16_t reserved2;
};

struct rocecert_dut_qp_init {
  uint32_t qp_type; /* ibv_qp_type: 2 RC, 3 UC, 4 UD */
  uint32_t pd;
  uint32_t send_cq;
  uint32_t recv_cq;
  uint32_t srq; /* used when has_srq */
  uint32_t has_srq;
  uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
  uint32_t sq_sig_all;
};

/* The ibv_qp_attr fields RoCE uses; `mask` of rocecert_dut_modify_qp says which are given
 * (ibv_qp_attr_mask bits). */
struct rocecert_dut_qp_attr {
  uint32_t qp_state; /* ibv_qp_state */
  uint32_t cur_qp_state;
  uint32_t path_mtu; /* ibv_mtu: 1 = 256 .. 5 = 4096 */
  uint32_t qkey;
  uint32_t rq_psn;
  uint32_t sq_psn;
  uint32_t dest_qp_num;
  uint32_t qp_access_flags;
  uint32_t pkey_index;
  uint32_t port_num;
  struct rocecert_dut_av ah_attr;
  uint32_t timeout;
  uint32_t retry_cnt;
  uint32_t rnr_retry;
  uint32_t min_rnr_timer;
  uint32_t max_rd_atomic;
  uint32_t max_dest_rd_atomic;
  uint32_t path_mig_state;
  uint32_t en_sqd_async_notify;
  uint32_t rate_limit;
};

struct rocecert_dut_send_wr {
  uint64_t wr_id;
  uint32_t opcode;     /* ibv_wr_opcode */
  uint32_t send_flags; /* ibv_send_flags */
  const struct rocecert_dut_sge* sg_list;
  uint32_t num_sge;
  uint32_t inline_len; /* IBV_SEND_INLINE: the bytes are in inline_data, sg_list is empty */
  const uint8_t* inline_data;
  uint32_t imm_data; /* as ImmDt carries it (network order value) */
  uint32_t invalidate_rkey;
  uint64_t remote_addr;
  uint32_t rkey;
  uint32_t remote_qpn;  /* UD */
  uint32_t remote_qkey; /* UD */
  uint32_t has_ah;      /* UD: ah is the destination */
  struct rocecert_dut_av ah;
  uint64_t compare_add, swap;
  uint32_t bind_mw; /* BIND_MW: the window's handle */
  uint32_t bind_mr_lkey;
  uint64_t bind_addr, bind_length;
  uint32_t bind_access;
  uint8_t flush_type, flush_level; /* FLUSH (FETH) */
  uint16_t reserved;
};

struct rocecert_dut_wc { /* ibv_wc */
  uint64_t wr_id;
  uint32_t status; /* ibv_wc_status */
  uint32_t opcode; /* ibv_wc_opcode; looked at only when status is SUCCESS */
  uint32_t vendor_err;
  uint32_t byte_len;
  uint32_t imm_data; /* or the invalidated rkey, with IBV_WC_WITH_INV */
  uint32_t qp_num;
  uint32_t src_qp;
  uint32_t wc_flags;
  uint32_t pkey_index;
  uint32_t reserved;
};

struct rocecert_dut_async_event {
  uint32_t type;    /* ibv_event_type */
  uint32_t element; /* the QPN, CQ or SRQ handle it names; 0 for port and device events */
};

/* --- required --------------------------------------------------------------------------- */
uint32_t rocecert_dut_abi_version(void); /* ROCECERT_DUT_ABI_VERSION the plugin was built with */
/* NULL on failure, with a message in error[0 .. error_len): the run fails with it, or the vector
 * is UNSUPPORTED when the message starts with "unsupported:" (an adapter profile or MTU the
 * device does not offer, say). */
rocecert_dut* rocecert_dut_create(const struct rocecert_dut_config* config, char* error,
                                  size_t error_len);
void rocecert_dut_destroy(rocecert_dut* dut);
void rocecert_dut_receive(rocecert_dut* dut, const uint8_t* frame, size_t len);
void rocecert_dut_advance(rocecert_dut* dut, uint64_t now_ns);
uint64_t rocecert_dut_next_event_ns(rocecert_dut* dut);

/* --- optional --------------------------------------------------------------------------- */
/* What the device offers, comma separated, from the names vectors use in "capabilities"
 * (vectors/README.md): "RC,UC,UD,ATOMIC,MW,SEND_WITH_INV,FLUSH,ATOMIC_WRITE,CNP", and
 * ACK_EVERY_ACKREQ when the responder acknowledges every AckReq at once (does not coalesce). */
const char* rocecert_dut_capabilities(void);
int rocecert_dut_mem_write(rocecert_dut* dut, uint64_t addr, const void* bytes, size_t len);
int rocecert_dut_mem_read(rocecert_dut* dut, uint64_t addr, void* bytes, size_t len);

int rocecert_dut_alloc_pd(rocecert_dut* dut, uint32_t* pd);
/* ibv_reg_mr_iova: `iova` equals `addr` for a plain ibv_reg_mr. */
int rocecert_dut_reg_mr(rocecert_dut* dut, uint32_t pd, uint64_t addr, uint64_t length,
                        uint64_t iova, uint32_t access, uint32_t* lkey, uint32_t* rkey);
/* ibv_dereg_mr of the MR with this lkey. */
int rocecert_dut_dereg_mr(rocecert_dut* dut, uint32_t lkey);
int rocecert_dut_alloc_mw(rocecert_dut* dut, uint32_t pd, uint32_t type, uint32_t* mw,
                          uint32_t* rkey);
int rocecert_dut_mw_rkey(rocecert_dut* dut, uint32_t mw, uint32_t* rkey); /* after binds */
int rocecert_dut_create_cq(rocecert_dut* dut, uint32_t cqe, uint32_t* cq);
int rocecert_dut_create_srq(rocecert_dut* dut, uint32_t max_wr, uint32_t max_sge, uint32_t* srq);
int rocecert_dut_create_qp(rocecert_dut* dut, const struct rocecert_dut_qp_init* init,
                           uint32_t* qpn);
int rocecert_dut_modify_qp(rocecert_dut* dut, uint32_t qpn, const struct rocecert_dut_qp_attr* attr,
                           uint32_t mask);
int rocecert_dut_query_qp_state(rocecert_dut* dut, uint32_t qpn, uint32_t* state);
int rocecert_dut_post_send(rocecert_dut* dut, uint32_t qpn, const struct rocecert_dut_send_wr* wr);
int rocecert_dut_post_recv(rocecert_dut* dut, uint32_t qpn, uint64_t wr_id,
                           const struct rocecert_dut_sge* sg_list, uint32_t num_sge);
int rocecert_dut_post_srq_recv(rocecert_dut* dut, uint32_t srq, uint64_t wr_id,
                               const struct rocecert_dut_sge* sg_list, uint32_t num_sge);
int rocecert_dut_arm_srq_limit(rocecert_dut* dut, uint32_t srq, uint32_t limit);
/* Up to `max` completions, oldest first: the count, or minus an errno value. */
int rocecert_dut_poll_cq(rocecert_dut* dut, uint32_t cq, struct rocecert_dut_wc* wc, int max);
/* 1 and *event filled when an asynchronous event is pending (oldest first), else 0. */
int rocecert_dut_poll_async_event(rocecert_dut* dut, struct rocecert_dut_async_event* event);

#ifdef __cplusplus
}
#endif

#endif /* ROCECERT_DUT_H */
