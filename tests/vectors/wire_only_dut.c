/* A device plugin with only the required functions of rocecert/dut.h and one capability: no
 * verbs, a port that never sends. The tests use it to see vectors judged UNSUPPORTED (a
 * capability the device does not list, a function it does not export) rather than FAIL. */
#include "rocecert/dut.h"

#include <stdlib.h>

struct rocecert_dut {
  uint64_t now;
  uint64_t frames_received;
};

uint32_t rocecert_dut_abi_version(void) {
  return ROCECERT_DUT_ABI_VERSION;
}

const char* rocecert_dut_capabilities(void) {
  return "RC";
}

rocecert_dut* rocecert_dut_create(const struct rocecert_dut_config* config, char* error,
                                  size_t error_len) {
  (void)config;
  (void)error;
  (void)error_len;
  return calloc(1, sizeof(struct rocecert_dut));
}

void rocecert_dut_destroy(rocecert_dut* dut) {
  free(dut);
}

void rocecert_dut_receive(rocecert_dut* dut, const uint8_t* frame, size_t len) {
  (void)frame;
  (void)len;
  ++dut->frames_received;
}

void rocecert_dut_advance(rocecert_dut* dut, uint64_t now_ns) {
  dut->now = now_ns;
}

uint64_t rocecert_dut_next_event_ns(rocecert_dut* dut) {
  (void)dut;
  return ROCECERT_DUT_NEVER;
}
