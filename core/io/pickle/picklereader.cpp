#include "core/io/pickle/picklereader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace ks::pickle {

const char* kindName(Kind k)
{
    switch (k) {
    case Kind::None:
        return "None";
    case Kind::Bool:
        return "bool";
    case Kind::Int:
        return "int";
    case Kind::BigInt:
        return "int beyond 64 bits";
    case Kind::Float:
        return "float";
    case Kind::Str:
        return "str";
    case Kind::Bytes:
        return "bytes";
    case Kind::Object:
        return "container";
    }
    return "?";
}

namespace {

constexpr size_t kBufferSize = size_t(1) << 20;

// Packed memo entries: 3 bits of kind over 61 bits of payload; kUnset marks a hole left by a PUT
// beyond the end (pickle allows any index).
constexpr unsigned kPayloadBits = 61;
constexpr uint64_t kPayloadMask = (uint64_t(1) << kPayloadBits) - 1;
constexpr uint64_t kUnset = ~uint64_t(0);

uint64_t pack(Kind k, uint64_t payload)
{
    return (uint64_t(k) << kPayloadBits) | payload;
}

const char* opcodeName(uint8_t op)
{
    switch (op) {
    case 'c':
        return "GLOBAL";
    case 0x93:
        return "STACK_GLOBAL";
    case 'R':
        return "REDUCE";
    case 'b':
        return "BUILD";
    case 'i':
        return "INST";
    case 'o':
        return "OBJ";
    case 0x81:
        return "NEWOBJ";
    case 0x92:
        return "NEWOBJ_EX";
    case 'P':
        return "PERSID";
    case 'Q':
        return "BINPERSID";
    case 0x82:
        return "EXT1";
    case 0x83:
        return "EXT2";
    case 0x84:
        return "EXT4";
    case 0x97:
        return "NEXT_BUFFER";
    case 0x98:
        return "READONLY_BUFFER";
    case 0x8f:
        return "EMPTY_SET";
    case 0x90:
        return "ADDITEMS";
    case 0x91:
        return "FROZENSET";
    case 'F':
        return "FLOAT";
    case 'I':
        return "INT";
    case 'L':
        return "LONG";
    case 'S':
        return "STRING";
    case 'V':
        return "UNICODE";
    case 'g':
        return "GET";
    case 'p':
        return "PUT";
    default:
        return nullptr;
    }
}

bool runsCode(uint8_t op)
{
    switch (op) {
    case 'c':
    case 0x93:
    case 'R':
    case 'b':
    case 'i':
    case 'o':
    case 0x81:
    case 0x92:
    case 'P':
    case 'Q':
    case 0x82:
    case 0x83:
    case 0x84:
    case 0x97:
    case 0x98:
        return true;
    default:
        return false;
    }
}

uint32_t le32(const uint8_t* p)
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p)
{
    return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32;
}

std::string hexByte(uint8_t b)
{
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

} // namespace

struct Reader::Failure {
    std::string message;
};

Reader::Reader(Handler& handler, Limits limits) : m_handler(handler), m_limits(limits) {}
Reader::~Reader() = default;

void Reader::fail(const std::string& what) const
{
    throw Failure{"pickle: " + what + " at byte " + std::to_string(m_opOffset)};
}

bool Reader::refill(size_t need)
{
    if (m_cancel && m_cancel->load(std::memory_order_relaxed)) fail("cancelled");
    if (m_pos > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_pos, m_end - m_pos);
        m_bufferOffset += m_pos;
        m_end -= m_pos;
        m_pos = 0;
    }
    if (m_buffer.size() < need) m_buffer.resize(need);
    while (m_end < need && !m_eof) {
        const size_t n =
            m_source->read(reinterpret_cast<char*>(m_buffer.data()) + m_end, m_buffer.size() - m_end);
        if (n == 0) m_eof = true;
        m_end += n;
    }
    if (m_progress) m_progress->store(m_bufferOffset + m_end, std::memory_order_relaxed);
    return m_end >= need;
}

void Reader::takeSlow(size_t n)
{
    if (!refill(n)) fail("truncated (needs " + std::to_string(n) + " more bytes)");
}

// The hot path of every opcode (a snapshot's frames lists are runs of BINGET: take, memoGet, push),
// kept inline in run(): as calls they were half of a gigabyte's read.
[[gnu::always_inline]] inline const uint8_t* Reader::take(size_t n)
{
    if (m_end - m_pos < n) [[unlikely]]
        takeSlow(n);
    const uint8_t* p = m_buffer.data() + m_pos;
    m_pos += n;
    return p;
}

// Bytes of a str/bytes; large ones go through m_scratch so the buffer stays small.
std::string_view Reader::takeText(uint64_t n)
{
    if (n > m_limits.maxItemBytes) fail("string of " + std::to_string(n) + " bytes is over the limit");
    if (n <= kBufferSize) return {reinterpret_cast<const char*>(take(size_t(n))), size_t(n)};
    m_scratch.clear();
    m_scratch.reserve(size_t(n));
    uint64_t left = n;
    while (left > 0) {
        if (m_pos == m_end && !refill(1))
            fail("truncated (a string needs " + std::to_string(left) + " more bytes)");
        const size_t k = size_t(std::min<uint64_t>(left, m_end - m_pos));
        m_scratch.append(reinterpret_cast<const char*>(m_buffer.data() + m_pos), k);
        m_pos += k;
        left -= k;
    }
    return m_scratch;
}

void Reader::stackFull() const
{
    fail("stack deeper than " + std::to_string(m_stackLimit) + " values (the larger of " +
         std::to_string(m_limits.maxStack) + " and the file's " + std::to_string(m_source->inputSize()) +
         " bytes)");
}

[[gnu::always_inline]] inline void Reader::push(const Value& v)
{
    if (m_stack.size() >= m_stackLimit) [[unlikely]]
        stackFull();
    m_stack.push_back(v);
}

size_t Reader::markPosition() const
{
    return m_marks.empty() ? 0 : m_marks.back();
}

Value Reader::pop()
{
    if (m_stack.size() <= markPosition()) fail("stack underflow");
    Value v = m_stack.back();
    m_stack.pop_back();
    return v;
}

Value& Reader::top()
{
    if (m_stack.size() <= markPosition()) fail("stack underflow");
    return m_stack.back();
}

void Reader::popMark()
{
    if (m_marks.empty()) fail("no MARK to pop");
    m_stack.shrink(m_marks.back());
    m_marks.pop_back();
}

Value Reader::makeString(std::string_view bytes, Kind kind)
{
    const size_t before = m_strings.size();
    const StringId id = m_strings.intern(bytes);
    if (m_strings.size() != before) {
        m_stringBytes += bytes.size();
        if (m_stringBytes > m_limits.maxStringBytes)
            fail("distinct strings over " + std::to_string(m_limits.maxStringBytes) + " bytes");
    }
    Value v;
    v.kind = kind;
    v.stringId = id.value;
    v.text = m_strings.view(id);
    return v;
}

// LONG1/LONG4: little-endian two's complement. Up to 8 bytes is an int64; more bytes are an
// int64 too when they only repeat the sign, else a flagged BigInt.
Value Reader::makeLong(const uint8_t* p, uint64_t n)
{
    if (n == 0) return Value::ofInt(0);
    const bool negative = (p[n - 1] & 0x80) != 0;
    const uint8_t fill = negative ? 0xff : 0x00;
    for (uint64_t k = 8; k < n; ++k)
        if (p[k] != fill) {
            Value v;
            v.kind = Kind::BigInt;
            return v;
        }
    uint64_t u = negative ? ~uint64_t(0) : 0;
    const uint64_t low = n < 8 ? n : 8;
    for (uint64_t k = 0; k < low; ++k) {
        u &= ~(uint64_t(0xff) << (8 * k));
        u |= uint64_t(p[k]) << (8 * k);
    }
    // Beyond 8 bytes the sign must agree with bit 63, or the value does not fit.
    if (n > 8 && ((u >> 63) != 0) != negative) {
        Value v;
        v.kind = Kind::BigInt;
        return v;
    }
    return Value::ofInt(int64_t(u));
}

void Reader::memoPut(uint64_t index)
{
    const Value& v = top();
    if (index >= m_limits.maxMemo) fail("memo index " + std::to_string(index) + " over the limit");
    uint64_t packed = 0;
    switch (v.kind) {
    case Kind::None:
        packed = pack(Kind::None, 0);
        break;
    case Kind::Bool:
        packed = pack(Kind::Bool, v.b ? 1 : 0);
        break;
    case Kind::BigInt:
        packed = pack(Kind::BigInt, 0);
        break;
    case Kind::Str:
    case Kind::Bytes:
        packed = pack(v.kind, v.stringId);
        break;
    case Kind::Float:
        packed = pack(Kind::Float, m_memoFloats.size());
        m_memoFloats.push_back(v.d);
        break;
    case Kind::Int:
        if (v.i >= 0 && uint64_t(v.i) < (kPayloadMask >> 1)) {
            packed = pack(Kind::Int, uint64_t(v.i) << 1);
        } else {
            packed = pack(Kind::Int, (uint64_t(m_memoInts.size()) << 1) | 1);
            m_memoInts.push_back(v.i);
        }
        break;
    case Kind::Object:
        if (v.handle > kPayloadMask) fail("container handle out of range");
        packed = pack(Kind::Object, v.handle);
        break;
    }
    if (index >= m_memo.size()) {
        // Python's pickler numbers the memo densely; a far jump would only waste memory.
        if (index - m_memo.size() > (uint64_t(1) << 20))
            fail("memo index " + std::to_string(index) + " far beyond the memo's " +
                 std::to_string(m_memo.size()) + " entries");
        m_memo.resize(size_t(index) + 1, kUnset);
    }
    m_memo[size_t(index)] = packed;
}

[[gnu::always_inline]] inline Value Reader::memoGet(uint64_t index)
{
    if (index >= m_memo.size() || m_memo[size_t(index)] == kUnset)
        fail("memo index " + std::to_string(index) + " was never stored");
    const uint64_t packed = m_memo[size_t(index)];
    const Kind kind = Kind(packed >> kPayloadBits);
    const uint64_t payload = packed & kPayloadMask;
    switch (kind) {
    case Kind::None:
        return Value::none();
    case Kind::Bool:
        return Value::ofBool(payload != 0);
    case Kind::BigInt: {
        Value v;
        v.kind = Kind::BigInt;
        return v;
    }
    case Kind::Str:
    case Kind::Bytes: {
        Value v;
        v.kind = kind;
        v.stringId = uint32_t(payload);
        v.text = m_strings.view(StringId(uint32_t(payload)));
        return v;
    }
    case Kind::Float:
        return Value::ofFloat(m_memoFloats[size_t(payload)]);
    case Kind::Int:
        if (payload & 1) return Value::ofInt(m_memoInts[size_t(payload >> 1)]);
        return Value::ofInt(int64_t(payload >> 1));
    case Kind::Object:
        return Value::ofObject(payload);
    }
    fail("corrupt memo");
}

void Reader::appendsFromMark()
{
    if (m_marks.empty()) fail("APPENDS without MARK");
    const size_t mark = m_marks.back();
    const size_t below = m_marks.size() > 1 ? m_marks[m_marks.size() - 2] : 0;
    if (mark == 0 || mark <= below) fail("APPENDS with no list below its MARK");
    const Value& list = m_stack[mark - 1];
    if (!list.isObject()) fail(std::string("APPENDS to a ") + kindName(list.kind));
    m_handler.appendMany(list.handle, std::span<const Value>(m_stack.data() + mark, m_stack.size() - mark));
    popMark();
}

void Reader::setItemsFromMark()
{
    if (m_marks.empty()) fail("SETITEMS without MARK");
    const size_t mark = m_marks.back();
    const size_t below = m_marks.size() > 1 ? m_marks[m_marks.size() - 2] : 0;
    if (mark == 0 || mark <= below) fail("SETITEMS with no dict below its MARK");
    if ((m_stack.size() - mark) % 2 != 0) fail("SETITEMS with an odd number of items");
    const Value& dict = m_stack[mark - 1];
    if (!dict.isObject()) fail(std::string("SETITEMS to a ") + kindName(dict.kind));
    for (size_t k = mark; k < m_stack.size(); k += 2)
        m_handler.setItem(dict.handle, m_stack[k], m_stack[k + 1]);
    popMark();
}

// LIST, DICT and TUPLE: a container of the items above the MARK.
void Reader::containerFromMark(uint8_t op)
{
    if (m_marks.empty()) fail("container opcode without MARK");
    const size_t mark = m_marks.back();
    const size_t n = m_stack.size() - mark;
    Value made;
    if (op == 't') {
        made = Value::ofObject(m_handler.newTuple(std::span<const Value>(m_stack.data() + mark, n)));
    } else if (op == 'l') {
        made = Value::ofObject(m_handler.newList());
        for (size_t k = mark; k < m_stack.size(); ++k)
            m_handler.append(made.handle, m_stack[k]);
    } else {
        if (n % 2 != 0) fail("DICT with an odd number of items");
        made = Value::ofObject(m_handler.newDict());
        for (size_t k = mark; k < m_stack.size(); k += 2)
            m_handler.setItem(made.handle, m_stack[k], m_stack[k + 1]);
    }
    popMark();
    push(made);
}

void Reader::tupleOf(size_t n)
{
    if (m_stack.size() < markPosition() + n) fail("stack underflow");
    const size_t first = m_stack.size() - n;
    const Value made = Value::ofObject(m_handler.newTuple(std::span<const Value>(m_stack.data() + first, n)));
    m_stack.shrink(first);
    push(made);
}

bool Reader::read(ByteSource& source, std::string& error)
{
    m_source = &source;
    // The stack's limit grows with the file. Every opcode that pushes a value is at least one byte
    // of input, so a pickle never holds more values than it has bytes: for a plain file this limit
    // refuses nothing legitimate (torch's C++ pickler writes a list of millions of trace entries as
    // one MARK ... APPENDS batch, all on the stack at once), while the stack's memory stays at most
    // sizeof(Value) bytes per byte of the file, its growth clamped to the limit. A gzip file
    // counts its compressed bytes: a small one inflating to a huge batch (a bomb) still stops at
    // Limits::maxStack; a snapshot's entries (each its own address and time) take far more than a
    // compressed byte each. A source of unknown size (0: a pipe) keeps Limits::maxStack.
    //
    // Handing a long pending batch to its list early instead would not be the same pickle: the
    // batch's values are only a list's items once APPENDS comes; until then POP, POP_MARK, LIST,
    // TUPLE or DICT may still take them, and a handler cannot take back an append.
    m_stackLimit = size_t(std::max<uint64_t>(m_limits.maxStack, source.inputSize()));
    m_stack.limitCapacity(m_stackLimit);
    m_buffer.assign(kBufferSize, 0);
    m_pos = m_end = 0;
    m_bufferOffset = 0;
    m_eof = false;
    try {
        run();
        return true;
    } catch (const Failure& f) {
        error = f.message;
    } catch (const std::bad_alloc&) {
        error = "pickle: out of memory at byte " + std::to_string(m_opOffset);
    } catch (const std::exception& e) {
        // The handler's message (or the byte source's I/O error), with where the reader was.
        error = std::string(e.what()) + " (pickle byte " + std::to_string(m_opOffset) + ")";
    }
    return false;
}

void Reader::run()
{
    m_opOffset = 0;
    const uint8_t first = *take(1);
    if (first != 0x80) fail("not a pickle of protocol 2 or later (first byte " + hexByte(first) + ")");
    const uint8_t proto = *take(1);
    if (proto < 2 || proto > 5) fail("unsupported pickle protocol " + std::to_string(proto));
    for (;;) {
        m_opOffset = m_bufferOffset + m_pos;
        ++m_opcodes;
        const uint8_t op = *take(1);
        switch (op) {
        case 0x80: { // PROTO (again: allowed by pickle, same bounds)
            const uint8_t p = *take(1);
            if (p < 2 || p > 5) fail("unsupported pickle protocol " + std::to_string(p));
            break;
        }
        case 0x95: { // FRAME: a length hint for buffering; the reader has its own
            take(8);
            break;
        }
        case '.': { // STOP
            if (!m_marks.empty()) fail("STOP with an open MARK");
            if (m_stack.size() != 1)
                fail("STOP with " + std::to_string(m_stack.size()) + " values on the stack");
            m_handler.finish(m_stack.back());
            return;
        }
        case '(': // MARK
            if (m_marks.size() >= m_limits.maxMarks)
                fail("more than " + std::to_string(m_limits.maxMarks) + " open MARKs");
            m_marks.push_back(m_stack.size());
            break;
        case '0': // POP: the top value, or the whole mark when nothing is above it (as Python does)
            if (m_stack.size() > markPosition())
                m_stack.pop_back();
            else
                popMark();
            break;
        case '1':
            popMark();
            break; // POP_MARK
        case '2':
            push(top());
            break; // DUP
        case 'N':
            push(Value::none());
            break;
        case 0x88:
            push(Value::ofBool(true));
            break;
        case 0x89:
            push(Value::ofBool(false));
            break;
        case 'J':
            push(Value::ofInt(int32_t(le32(take(4)))));
            break;
        case 'K':
            push(Value::ofInt(*take(1)));
            break;
        case 'M': {
            const uint8_t* p = take(2);
            push(Value::ofInt(int64_t(p[0]) | int64_t(p[1]) << 8));
            break;
        }
        case 0x8a: { // LONG1
            const uint8_t n = *take(1);
            push(makeLong(take(n), n));
            break;
        }
        case 0x8b: { // LONG4
            const int32_t n = int32_t(le32(take(4)));
            if (n < 0) fail("LONG4 with a negative length");
            const std::string_view bytes = takeText(uint64_t(n));
            push(makeLong(reinterpret_cast<const uint8_t*>(bytes.data()), uint64_t(n)));
            break;
        }
        case 'G': { // BINFLOAT, big-endian
            uint64_t u = 0;
            const uint8_t* p = take(8);
            for (int k = 0; k < 8; ++k)
                u = (u << 8) | p[k];
            push(Value::ofFloat(std::bit_cast<double>(u)));
            break;
        }
        case 0x8c: { // SHORT_BINUNICODE
            const uint8_t n = *take(1);
            push(makeString(takeText(n), Kind::Str));
            break;
        }
        case 'X':
            push(makeString(takeText(le32(take(4))), Kind::Str));
            break; // BINUNICODE
        case 0x8d:
            push(makeString(takeText(le64(take(8))), Kind::Str));
            break;  // BINUNICODE8
        case 'C': { // SHORT_BINBYTES
            const uint8_t n = *take(1);
            push(makeString(takeText(n), Kind::Bytes));
            break;
        }
        case 'B':
            push(makeString(takeText(le32(take(4))), Kind::Bytes));
            break; // BINBYTES
        case 0x8e:
            push(makeString(takeText(le64(take(8))), Kind::Bytes));
            break; // BINBYTES8
        case 0x96:
            push(makeString(takeText(le64(take(8))), Kind::Bytes));
            break;  // BYTEARRAY8
        case 'U': { // SHORT_BINSTRING (Python 2 str): kept as bytes
            const uint8_t n = *take(1);
            push(makeString(takeText(n), Kind::Bytes));
            break;
        }
        case 'T': { // BINSTRING
            const int32_t n = int32_t(le32(take(4)));
            if (n < 0) fail("BINSTRING with a negative length");
            push(makeString(takeText(uint64_t(n)), Kind::Bytes));
            break;
        }
        case ']':
            push(Value::ofObject(m_handler.newList()));
            break;
        case '}':
            push(Value::ofObject(m_handler.newDict()));
            break;
        case ')':
            push(Value::ofObject(m_handler.newTuple({})));
            break;
        case 't':
        case 'l':
        case 'd':
            containerFromMark(op);
            break;
        case 0x85:
            tupleOf(1);
            break;
        case 0x86:
            tupleOf(2);
            break;
        case 0x87:
            tupleOf(3);
            break;
        case 'a': { // APPEND
            const Value item = pop();
            const Value& list = top();
            if (!list.isObject()) fail(std::string("APPEND to a ") + kindName(list.kind));
            m_handler.append(list.handle, item);
            break;
        }
        case 'e':
            appendsFromMark();
            break;
        case 's': { // SETITEM
            const Value value = pop();
            const Value key = pop();
            const Value& dict = top();
            if (!dict.isObject()) fail(std::string("SETITEM to a ") + kindName(dict.kind));
            m_handler.setItem(dict.handle, key, value);
            break;
        }
        case 'u':
            setItemsFromMark();
            break;
        case 'q':
            memoPut(*take(1));
            break; // BINPUT
        case 'r':
            memoPut(le32(take(4)));
            break; // LONG_BINPUT
        case 0x94:
            memoPut(m_memo.size());
            break; // MEMOIZE
        case 'h':
            push(memoGet(*take(1)));
            break; // BINGET
        case 'j':
            push(memoGet(le32(take(4))));
            break;
        default: {
            const char* name = opcodeName(op);
            if (runsCode(op))
                fail(std::string("opcode ") + name + " (" + hexByte(op) + ") would run code; refused");
            if (name) fail(std::string("opcode ") + name + " (" + hexByte(op) + ") is not supported");
            fail("unknown opcode " + hexByte(op));
        }
        }
    }
}

} // namespace ks::pickle
