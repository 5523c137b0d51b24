#pragma once

#include <cstdint>

namespace ks::record {

enum class RecordType : uint8_t {
    Begin = 1, // a range starts: name, a = payload id (0 = none), b = correlation id (0 = none),
               // deviceType = category (RangeCategory)
    End,       // the innermost open range of this thread ends
    Mark,      // instant: name, a = payload id
    Counter,   // name, a = bit pattern of a double value
    Alloc,     // a = address, b = bytes (> 0), deviceType/deviceIndex
    Free,      // a = address, b = bytes when known (else 0), deviceType/deviceIndex
    Complete,  // a finished range given afterwards (e.g. GPU work): name, a = end ticks, b = correlation
    Stack,     // call stack of the Begin just before it (record/stackcapture.h): deviceType 0 = native
               // return addresses in ticks, a, b (deviceIndex of them used; a deep stack takes several
               // records), deviceType 1 = name is an interned "Call stack" text
    OpInfo,    // autograd ids of the operator Begin before it (after its Stack records, if any):
               // ticks = record function id, a = sequence number (-1 none), b = forward thread id,
               // name = the recording thread's number in torch (for forward/backward links)
};

// What kind of range a Begin opens; becomes the slice's category ("cat").
enum class RangeCategory : uint8_t {
    UserAnnotation = 0, // record_function / ks ranges
    CpuOp = 1,          // an operator or autograd function seen by the torch observer
    PythonFunction = 2, // a Python call torch's Python tracer would show (nn.Module forwards)
};

// One recorded event: 32 bytes, written by exactly one thread into its own buffer. Times are raw
// Clock ticks; they become monotonic ns when the records leave the recorder.
struct Record {
    uint64_t ticks;
    RecordType type;
    uint8_t deviceType; // c10::DeviceType numbering: 0 CPU, 1 CUDA, 20 XPU ...
    int16_t deviceIndex;
    uint32_t name; // id in the recorder's name table
    uint64_t a;
    int64_t b;
};
static_assert(sizeof(Record) == 32);

} // namespace ks::record
