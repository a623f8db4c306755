// The keys the scenario loader accepts and requires in each kind of JSON object, as data: the
// loader checks every object against its entry (Reader::object), and the schema test compares
// every entry with the definition the schema gives for that kind (conformance/tests/
// schema_test.cpp), so the two cannot drift apart. "description" is accepted everywhere and is
// not listed.
#pragma once

#include <span>
#include <string_view>

namespace rocecert::conformance::keys {

struct ObjectKeys {
  std::string_view kind;    // "adapter", "step_reg_mr", "fault_rule", ...
  std::string_view schema;  // JSON pointer to its definition in scenario.schema.json
  std::span<const std::string_view> allowed;   // every key the loader reads
  std::span<const std::string_view> required;  // the keys it always needs, in checking order
};

extern const ObjectKeys kRoot;
extern const ObjectKeys kAdapter;
extern const ObjectKeys kProfile;
extern const ObjectKeys kProfileAckreq;
extern const ObjectKeys kProfileAck;
extern const ObjectKeys kProfileDcqcn;
extern const ObjectKeys kLink;
extern const ObjectKeys kFaults;
extern const ObjectKeys kFaultRates;
extern const ObjectKeys kFaultRule;
extern const ObjectKeys kFaultMatch;
extern const ObjectKeys kPiece;
extern const ObjectKeys kMemoryExpect;
extern const ObjectKeys kAddressVector;
extern const ObjectKeys kSge;
extern const ObjectKeys kQpAttr;
extern const ObjectKeys kQpCap;
extern const ObjectKeys kSendWr;
extern const ObjectKeys kBind;
extern const ObjectKeys kRecvWr;
extern const ObjectKeys kSrqRecvWr;
extern const ObjectKeys kCompletion;
extern const ObjectKeys kFrameExpect;
extern const ObjectKeys kAsyncEvent;
extern const ObjectKeys kStepAllocPd;
extern const ObjectKeys kStepRegMr;
extern const ObjectKeys kStepAllocMw;
extern const ObjectKeys kStepCreateCq;
extern const ObjectKeys kStepCreateSrq;
extern const ObjectKeys kStepCreateQp;
extern const ObjectKeys kStepModifyQp;
extern const ObjectKeys kStepPostRecv;
extern const ObjectKeys kStepPostSend;
extern const ObjectKeys kStepRun;
extern const ObjectKeys kStepPostSrqRecv;
extern const ObjectKeys kStepArmSrqLimit;
extern const ObjectKeys kStepDeregMr;
extern const ObjectKeys kStepExpect;
extern const ObjectKeys kStepInject;
extern const ObjectKeys kInjectFrame;

// Every entry above.
std::span<const ObjectKeys* const> all();

}  // namespace rocecert::conformance::keys
