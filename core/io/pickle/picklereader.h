#pragma once

// A safe, streaming reader of Python pickles (protocols 2 to 5) that runs only the data opcodes:
// None, bools, ints, floats, str, bytes, lists, dicts, tuples, the memo, MARK and FRAME. Every
// opcode that would import or call something (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
// NEWOBJ, PERSID, EXT, out-of-band buffers) ends the read with a one-line error naming it and its
// byte offset; so do truncation, unknown opcodes and anything over the limits. Neither torch's
// `_dump_snapshot` (Python's pickle of the plain dict `_snapshot()` returns) nor its C++
// `_memory_snapshot_pickled` (the TorchScript pickler with tagging off) writes any of them
// (docs/snapshots.md).
//
// Nothing is built: the Handler is told what is made and filled (picklehandler.h). The reader keeps
// the pickle stack, the memo (8 bytes an entry) and the distinct strings, all bounded by Limits (the
// stack by the file's size when that is more; read() says why).

#include "core/io/bytesource.h"
#include "core/io/pickle/picklehandler.h"
#include "core/io/pickle/valuestack.h"
#include "core/util/stringpool.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ks::pickle {

struct Limits {
    // Values on the pickle stack: at least this many, and one per byte of the source's file when
    // that is more (see Reader::read). torch's C++ pickler writes a whole list as one MARK ...
    // APPENDS batch, so a long device trace is that many values on the stack at once.
    size_t maxStack = size_t(1) << 22;
    size_t maxMarks = 4096;                      // MARKs open at once (nesting of batches)
    uint64_t maxMemo = uint64_t(1) << 31;        // memo entries
    uint64_t maxStringBytes = uint64_t(8) << 30; // distinct str and bytes, all together
    uint64_t maxItemBytes = uint64_t(1) << 31;   // one str or bytes
};

class Reader {
public:
    explicit Reader(Handler& handler, Limits limits = {});
    ~Reader();

    // Reads one pickle, up to and including STOP. Returns false with a one-line error ("pickle:
    // ... at byte N", or the handler's message with the byte) when the input is refused.
    bool read(ByteSource& source, std::string& error);

    // Optional: the bytes consumed so far (updated per buffer) and a flag that stops the read.
    void setProgress(std::atomic<uint64_t>* bytesRead) { m_progress = bytesRead; }
    void setCancel(const std::atomic<bool>* cancel) { m_cancel = cancel; }

    const StringPool& strings() const { return m_strings; }
    uint64_t opcodes() const { return m_opcodes; }
    // The stack's limit for the last read, and the room it allocated (values of sizeof(Value)
    // bytes): what the stack's memory came to.
    size_t stackLimit() const { return m_stackLimit; }
    size_t stackCapacity() const { return m_stack.capacity(); }

private:
    struct Failure;

    void run();
    [[noreturn]] void fail(const std::string& what) const;
    const uint8_t* take(size_t n);
    [[gnu::noinline]] void takeSlow(size_t n);
    bool refill(size_t need);
    std::string_view takeText(uint64_t n);

    void push(const Value& v);
    [[noreturn, gnu::noinline]] void stackFull() const;
    Value pop();
    Value& top();
    size_t markPosition() const;
    void popMark();
    void memoPut(uint64_t index);
    Value memoGet(uint64_t index);
    Value makeString(std::string_view bytes, Kind kind);
    Value makeLong(const uint8_t* p, uint64_t n);
    void appendsFromMark();
    void setItemsFromMark();
    void containerFromMark(uint8_t op);
    void tupleOf(size_t n);

    Handler& m_handler;
    Limits m_limits;
    ByteSource* m_source = nullptr;
    std::vector<uint8_t> m_buffer;
    size_t m_pos = 0;
    size_t m_end = 0;
    uint64_t m_bufferOffset = 0; // file offset of m_buffer[0]
    uint64_t m_opOffset = 0;     // file offset of the opcode being run
    bool m_eof = false;
    std::string m_scratch;

    ValueStack m_stack;
    size_t m_stackLimit = 0;
    std::vector<size_t> m_marks;
    std::vector<uint64_t> m_memo; // packed: kind in the top 3 bits, payload below
    std::vector<double> m_memoFloats;
    std::vector<int64_t> m_memoInts; // ints that do not fit the packed payload
    StringPool m_strings;
    uint64_t m_stringBytes = 0;
    uint64_t m_opcodes = 0;

    std::atomic<uint64_t>* m_progress = nullptr;
    const std::atomic<bool>* m_cancel = nullptr;
};

} // namespace ks::pickle
