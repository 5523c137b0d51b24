#pragma once

#include "core/analysis/compare/windowaverages.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

#include <string>
#include <utility>
#include <vector>

namespace ks {

// One argument of one event name that differs between matched events of two runs.
struct ArgChange {
    std::string name; // the events' name
    EventKind kind = EventKind::Other;
    std::string key;    // the argument
    size_t pairs = 0;   // matched pairs of events with this name
    size_t changed = 0; // of them, the pairs whose value of `key` differs
    // A few distinct changes as display text (A's value, B's value), first seen first; "(absent)"
    // where a side lacks the argument.
    std::vector<std::pair<std::string, std::string>> examples;
};

struct ArgDiff {
    std::vector<ArgChange> changes; // by name, then argument
    size_t names = 0;               // event names with as many events in both runs (compared)
    size_t namesChanged = 0;        // of them, those with an argument change
    size_t pairs = 0;               // event pairs compared
};

// The arguments of matched events: the k-th event of a (kind, name) in A's window against the k-th
// in B's, in time order, for the names with as many events on both sides (device work at its launch's time,
// as the op diff counts it). Arguments that identify an event within its own run (correlation, External id,
// Python id, ...) or restate its duration (memory bandwidth) are left out; an argument naming another event
// of the run (wait_on_cuda_event_record_corr_id) counts as changed only when it is unknown (-1) on one side.
ArgDiff diffArgs(const Trace& a, const LinkIndex& linksA, const EventWindow& windowA, const Trace& b,
                 const LinkIndex& linksB, const EventWindow& windowB);

// The text "(absent)" that ArgChange::examples holds for a missing argument.
extern const char* const kArgAbsent;

} // namespace ks
