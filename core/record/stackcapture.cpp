#include "core/record/stackcapture.h"

#include "core/record/api.h"

#include <algorithm>
#include <unwind.h>

namespace ks::record {

std::atomic<uint8_t> g_beginExtras{0};

namespace {

std::atomic<bool> g_stacksWanted{false};

// Frames above the caller's that the walk may see: extendedRangeBegin and, if the compiler kept it
// out of line, the capture helper.
constexpr int kOwnFramesSlack = 4;

struct Walk {
    uintptr_t* out;
    int n;
    int max;
};

_Unwind_Reason_Code walkStep(_Unwind_Context* ctx, void* arg)
{
    Walk* w = static_cast<Walk*>(arg);
    const uintptr_t ip = _Unwind_GetIP(ctx);
    if (ip == 0) return _URC_END_OF_STACK;
    w->out[w->n++] = ip;
    return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

// Return addresses from `caller` (the return address of extendedRangeBegin, i.e. the frame that
// opened the range) outwards; our own frames above it are dropped. libgcc's unwinder (DWARF CFI)
// works without frame pointers; since GCC 12 with glibc 2.35 it finds the unwind tables through
// _dl_find_object, without taking the loader lock.
int captureFrames(uintptr_t caller, uintptr_t (&frames)[kMaxStackDepth])
{
    uintptr_t raw[kMaxStackDepth + kOwnFramesSlack];
    Walk w{raw, 0, kMaxStackDepth + kOwnFramesSlack};
    _Unwind_Backtrace(walkStep, &w);
    int first = 0;
    while (first < std::min(w.n, kOwnFramesSlack) && raw[first] != caller)
        ++first;
    // The caller's address not seen (an unwinder quirk): keep all but the innermost frame, ours.
    if (first == std::min(w.n, kOwnFramesSlack)) first = std::min(w.n, 1);
    const int n = std::min(w.n - first, kMaxStackDepth);
    std::copy(raw + first, raw + first + n, frames);
    return n;
}

void writeFrames(const uintptr_t* frames, int n)
{
    ThreadBuffer* buf = currentBuffer();
    for (int i = 0; i < n; i += kFramesPerStackRecord) {
        Record* r = buf->slot();
        const int k = std::min(kFramesPerStackRecord, n - i);
        r->ticks = frames[i];
        r->type = RecordType::Stack;
        r->deviceType = 0;
        r->deviceIndex = int16_t(k);
        r->name = 0;
        r->a = k > 1 ? frames[i + 1] : 0;
        r->b = k > 2 ? int64_t(frames[i + 2]) : 0;
        buf->commit();
    }
}

} // namespace

void extendedRangeBegin(uint32_t name, uint64_t payload, int64_t correlation, uint32_t stackText)
{
    const uint8_t extras = g_beginExtras.load(std::memory_order_relaxed);
    uintptr_t frames[kMaxStackDepth];
    int n = 0;
    // Unwound before the Begin's timestamp, so the range's own time does not include it.
    if (stackText == 0 && (extras & kBeginNativeStack))
        n = captureFrames(reinterpret_cast<uintptr_t>(__builtin_return_address(0)), frames);
    if (extras & kBeginHooked) correlation = hookedRangeBegin(correlation);
    write(RecordType::Begin, name, payload, correlation);
    if (stackText != 0) {
        write(RecordType::Stack, stackText, 0, 0, 1);
    } else if (n > 0) {
        writeFrames(frames, n);
    }
}

void setStackCapture(bool wanted, bool native)
{
    g_stacksWanted.store(wanted, std::memory_order_relaxed);
    if (wanted && native)
        g_beginExtras.fetch_or(kBeginNativeStack, std::memory_order_release);
    else
        g_beginExtras.fetch_and(uint8_t(~kBeginNativeStack), std::memory_order_release);
}

bool stacksWanted()
{
    return g_stacksWanted.load(std::memory_order_relaxed);
}

void warmStackCapture()
{
    uintptr_t frames[kMaxStackDepth];
    (void)captureFrames(0, frames);
}

} // namespace ks::record
