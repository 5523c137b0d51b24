#pragma once

// The recording hot path: range begin/end, marks, counters and allocations, written into the
// calling thread's buffer without locks. When recording is off each call is one relaxed load and a
// branch.

#include "core/record/rangehooks.h"
#include "core/record/recorder.h"
#include "core/record/stackcapture.h"

namespace ks::record {

extern std::atomic<bool> g_recording;
// initial-exec keeps the access a single fs-relative load even when this code is in a dlopen'ed
// injection library.
extern thread_local ThreadBuffer* t_buffer __attribute__((tls_model("initial-exec")));

ThreadBuffer* registerThread();

inline bool recording()
{
    return g_recording.load(std::memory_order_relaxed);
}

inline ThreadBuffer* currentBuffer()
{
    ThreadBuffer* b = t_buffer;
    return b ? b : registerThread();
}

inline void write(RecordType type, uint32_t name, uint64_t a, int64_t b, uint8_t devType = 0,
                  int16_t devIndex = 0)
{
    ThreadBuffer* buf = currentBuffer();
    Record* r = buf->slot();
    r->ticks = Clock::ticks();
    r->type = type;
    r->deviceType = devType;
    r->deviceIndex = devIndex;
    r->name = name;
    r->a = a;
    r->b = b;
    buf->commit();
}

// With range listeners attached (a GPU collector linking kernels to ranges) a range gets an id that
// is recorded as its correlation ("External id") and handed to the listeners. With a with_stack
// profile recording, the calling thread's stack is recorded with it.
inline void rangeBegin(uint32_t name, uint64_t payload = 0, int64_t correlation = 0)
{
    if (recording()) {
        if (g_beginExtras.load(std::memory_order_relaxed)) [[unlikely]] {
            extendedRangeBegin(name, payload, correlation);
            // Keeps the call from becoming a tail call, which would take the frame that opens the
            // range off the stack being recorded.
            asm volatile("");
        } else {
            write(RecordType::Begin, name, payload, correlation);
        }
    }
}
// An operator range (torch observer, core/torch): category CpuOp, its record function id as the
// correlation ("External id"), and an OpInfo record with the autograd ids so that forward/backward
// links work. With range listeners attached the listeners see it like any range. Native stacks
// are not captured for ops (the caller's frames would be the interpreter's); stackText, the
// interned "Call stack" text the caller knows (the Python stack), is written as its Stack record.
inline void opBegin(uint32_t name, uint64_t payload, uint64_t recordFunctionId, int64_t sequenceNr,
                    uint64_t fwdThreadId, uint32_t torchThreadId = 0, uint32_t stackText = 0)
{
    if (!recording()) return;
    int64_t correlation = int64_t(recordFunctionId);
    if (g_rangeHooked.load(std::memory_order_relaxed)) [[unlikely]]
        correlation = hookedRangeBegin(correlation);
    ThreadBuffer* buf = currentBuffer();
    const uint64_t now = Clock::ticks();
    Record* r = buf->slot();
    r->ticks = now;
    r->type = RecordType::Begin;
    r->deviceType = uint8_t(RangeCategory::CpuOp);
    r->deviceIndex = 0;
    r->name = name;
    r->a = payload;
    r->b = correlation;
    buf->commit();
    if (stackText != 0) {
        r = buf->slot();
        r->ticks = now;
        r->type = RecordType::Stack;
        r->deviceType = 1; // text
        r->deviceIndex = 0;
        r->name = stackText;
        r->a = 0;
        r->b = 0;
        buf->commit();
    }
    r = buf->slot();
    r->ticks = recordFunctionId;
    r->type = RecordType::OpInfo;
    r->deviceType = 0;
    r->deviceIndex = 0;
    r->name = torchThreadId;
    r->a = uint64_t(sequenceNr);
    r->b = int64_t(fwdThreadId);
    buf->commit();
}

// A Python call as torch's Python tracer records it (category python_function): module forwards
// of a with_modules profile. No stack and no correlation: torch gives these neither.
inline void pythonBegin(uint32_t name)
{
    if (recording()) write(RecordType::Begin, name, 0, 0, uint8_t(RangeCategory::PythonFunction));
}

// A range whose call stack the caller knows (stackText: the interned "Call stack" text, frames
// innermost first joined by ';'); recorded whether or not with_stack is on.
inline void rangeBeginWithStack(uint32_t name, uint32_t stackText, uint64_t payload = 0)
{
    if (recording()) extendedRangeBegin(name, payload, 0, stackText);
}
inline void rangeEnd()
{
    if (recording()) {
        if (g_rangeHooked.load(std::memory_order_relaxed)) [[unlikely]]
            hookedRangeEnd();
        write(RecordType::End, 0, 0, 0);
    }
}
inline void mark(uint32_t name, uint64_t payload = 0)
{
    if (recording()) write(RecordType::Mark, name, payload, 0);
}
inline void counter(uint32_t name, double value)
{
    if (recording()) {
        uint64_t bits;
        static_assert(sizeof bits == sizeof value);
        __builtin_memcpy(&bits, &value, sizeof bits);
        write(RecordType::Counter, name, bits, 0);
    }
}
inline void recordAlloc(const void* ptr, int64_t bytes, uint8_t deviceType = 0, int16_t deviceIndex = -1)
{
    if (recording())
        write(RecordType::Alloc, 0, uint64_t(reinterpret_cast<uintptr_t>(ptr)), bytes, deviceType,
              deviceIndex);
}
inline void recordFree(const void* ptr, uint8_t deviceType = 0, int16_t deviceIndex = -1, int64_t bytes = 0)
{
    if (recording())
        write(RecordType::Free, 0, uint64_t(reinterpret_cast<uintptr_t>(ptr)), bytes, deviceType,
              deviceIndex);
}

// A range whose start and end were seen apart (e.g. nvtxRangeStart/End, which may end on another
// thread): written as one finished slice on the calling thread.
inline void completeRange(uint32_t name, uint64_t startTicks, uint64_t endTicks)
{
    if (!recording()) return;
    ThreadBuffer* buf = currentBuffer();
    Record* r = buf->slot();
    r->ticks = startTicks;
    r->type = RecordType::Complete;
    r->deviceType = 0;
    r->deviceIndex = 0;
    r->name = name;
    r->a = endTicks;
    r->b = 0;
    buf->commit();
}

inline uint32_t internName(std::string_view name)
{
    return Recorder::instance().intern(name);
}

// RAII range. Remembers whether it began while recording, so its end is written even if recording
// stops in between and begin/end stay paired.
class Range {
public:
    explicit Range(uint32_t name, uint64_t payload = 0) : m_on(recording())
    {
        if (m_on) rangeBeginRecorded(name, payload);
    }
    explicit Range(std::string_view name) : Range(internName(name)) {}
    ~Range()
    {
        if (m_on) {
            if (g_rangeHooked.load(std::memory_order_relaxed)) [[unlikely]]
                hookedRangeEnd();
            write(RecordType::End, 0, 0, 0);
        }
    }
    Range(const Range&) = delete;
    Range& operator=(const Range&) = delete;

private:
    // Always inlined: with_stack skips frames up to the one that opens the range, which must be
    // the user's.
    [[gnu::always_inline]] static void rangeBeginRecorded(uint32_t name, uint64_t payload)
    {
        if (g_beginExtras.load(std::memory_order_relaxed)) [[unlikely]] {
            extendedRangeBegin(name, payload, 0);
            asm volatile("");
        } else {
            write(RecordType::Begin, name, payload, 0);
        }
    }

    bool m_on;
};

} // namespace ks::record

#define KS_RECORD_CONCAT2(a, b) a##b
#define KS_RECORD_CONCAT(a, b) KS_RECORD_CONCAT2(a, b)
// KS_RANGE("name"): a range for the rest of the enclosing scope; the name is interned once per
// call site.
#define KS_RANGE(literal)                                                                                    \
    static const uint32_t KS_RECORD_CONCAT(ks_range_name_, __LINE__) = ::ks::record::internName(literal);    \
    ::ks::record::Range KS_RECORD_CONCAT(ks_range_, __LINE__)(KS_RECORD_CONCAT(ks_range_name_, __LINE__))
