#pragma once

// Call stacks of ranges (torch.profiler's with_stack). While a profiler with withStack records,
// every range begin also captures the calling thread's native stack: return addresses only,
// unwound right there and written as Stack records after the Begin in the thread's own buffer, so
// the hot path takes no lock and allocates nothing. Addresses become text only when a window is
// built (record/stacksymbols.h). Callers that know a better stack (the Python module) pass it as
// text instead.

#include <atomic>
#include <cstdint>

namespace ks::record {

// Frames kept per range, innermost first, after our own frames are skipped.
inline constexpr int kMaxStackDepth = 32;
inline constexpr int kFramesPerStackRecord = 3;

// What a range begin has to do besides writing its record; read by the hot path inside its
// "recording" branch only. Zero keeps the begin inline, so recording without listeners or stacks
// still costs one load and one predictable branch.
enum : uint8_t {
    kBeginHooked = 1,      // range listeners are attached (record/rangehooks.h)
    kBeginNativeStack = 2, // capture the native stack
};
extern std::atomic<uint8_t> g_beginExtras;

// The out-of-line range begin: captures the native stack (unless stackText, an interned name id of
// a "Call stack" text, is given: then that is the stack), tells range listeners, writes the Begin
// and its Stack records. Never inlined: the frames it skips are found from its own return address.
[[gnu::noinline]] void extendedRangeBegin(uint32_t name, uint64_t payload, int64_t correlation,
                                          uint32_t stackText = 0);

// Set by the Profiler around each window of a with_stack profile. native: capture native stacks
// (off when the caller attaches its own, as the Python module does).
void setStackCapture(bool wanted, bool native);
// A with_stack profile is recording: callers that build their own stack text check this first.
bool stacksWanted();
// Loads and primes the unwinder, so that the first captured range does not pay for it.
void warmStackCapture();

} // namespace ks::record
