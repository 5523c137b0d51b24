#include "io/tracereader.h"

#include "io/bytesource.h"
#include "io/eventparser.h"
#include "io/jsonscan.h"
#include "io/tracebuilder.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace ks {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One chunk of traceEvents text, laid out as '[' text ']' padding for simdjson.
struct Chunk {
    uint64_t index = 0;
    std::unique_ptr<char[]> data;
    size_t capacity = 0; // bytes allocated, padding included
    size_t textSize = 0;
    uint64_t streamOffset = 0; // offset of text[0] in the JSON stream
    bool last = false;         // the source ended after this chunk

    const char* text() const { return data.get() + 1; }
    char* text() { return data.get() + 1; }
    std::string_view view() const { return {text(), textSize}; }
};

std::unique_ptr<Chunk> makeChunk(std::string_view text, uint64_t streamOffset)
{
    auto c = std::make_unique<Chunk>();
    const size_t pad = EventParser::padding();
    c->capacity = text.size() + 2 + pad;
    c->data.reset(new char[c->capacity]);
    c->data[0] = '[';
    std::memcpy(c->text(), text.data(), text.size());
    c->textSize = text.size();
    c->data[1 + text.size()] = ']';
    std::memset(c->data.get() + 2 + text.size(), 0, pad);
    c->streamOffset = streamOffset;
    return c;
}

// Position just past the end of the last complete event in text: the end of a '}' that is
// followed by whitespace, a comma, whitespace and '{'. Returns 0 when no such boundary exists.
// This is a guess (the pattern could sit inside a string); parsing verifies it.
size_t findCut(const char* text, size_t size, size_t before)
{
    size_t i = std::min(before, size);
    while (i > 0) {
        --i;
        if (text[i] != '{')
            continue;
        size_t j = i;
        while (j > 0 && isJsonSpace(text[j - 1]))
            --j;
        if (j == 0 || text[j - 1] != ',')
            continue;
        --j;
        while (j > 0 && isJsonSpace(text[j - 1]))
            --j;
        if (j == 0 || text[j - 1] != '}')
            continue;
        return j; // text[j-1] == '}'
    }
    return 0;
}

std::string describeBinary(std::string_view head)
{
    auto starts = [&](std::string_view m) { return head.substr(0, m.size()) == m; };
    if (starts("\x89PNG"))
        return " (a PNG image)";
    if (starts("PK\x03\x04"))
        return " (a ZIP archive)";
    if (starts("\x7f"
               "ELF"))
        return " (an ELF binary)";
    if (starts("%PDF"))
        return " (a PDF document)";
    if (starts("BZh"))
        return " (bzip2 data; decompress it first)";
    if (starts("\xfd"
               "7zXZ"))
        return " (xz data; decompress it first)";
    if (starts("\x28\xb5\x2f\xfd"))
        return " (zstd data; decompress it first)";
    return "";
}

std::string hexBytes(std::string_view s, size_t n)
{
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < std::min(n, s.size()); ++i) {
        if (i)
            out.push_back(' ');
        const unsigned char c = static_cast<unsigned char>(s[i]);
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
    return out;
}

enum class MemberScan { Done, NeedMore, EventsStart, Malformed };

// Walks "key": value pairs of the top-level object from pos. Non-event values are handed to
// onMember. Stops at "traceEvents": [ (pos just past the '['), at the closing '}', or when more
// text is needed (pos left at the start of the incomplete member).
template <typename OnMember>
MemberScan scanMembers(std::string_view text, size_t& pos, bool& expectComma, OnMember&& onMember)
{
    const char* b = text.data();
    const char* e = b + text.size();
    while (true) {
        const char* p = skipJsonSpace(b + pos, e);
        if (p >= e)
            return MemberScan::NeedMore;
        if (*p == '}') {
            pos = size_t(p + 1 - b);
            return MemberScan::Done;
        }
        if (expectComma) {
            if (*p != ',') {
                pos = size_t(p - b);
                return MemberScan::Malformed;
            }
            ++p;
            p = skipJsonSpace(p, e);
            if (p >= e)
                return MemberScan::NeedMore;
        }
        if (*p != '"') {
            pos = size_t(p - b);
            return MemberScan::Malformed;
        }
        const char* keyEnd = nullptr;
        const ScanStatus ks = scanJsonValue(p, e, keyEnd);
        if (ks == ScanStatus::Incomplete)
            return MemberScan::NeedMore;
        if (ks == ScanStatus::Malformed) {
            pos = size_t(p - b);
            return MemberScan::Malformed;
        }
        const std::string_view key(p + 1, size_t(keyEnd - p - 2));
        const char* q = skipJsonSpace(keyEnd, e);
        if (q >= e)
            return MemberScan::NeedMore;
        if (*q != ':') {
            pos = size_t(q - b);
            return MemberScan::Malformed;
        }
        q = skipJsonSpace(q + 1, e);
        if (q >= e)
            return MemberScan::NeedMore;
        if (key == "traceEvents") {
            if (*q != '[') {
                pos = size_t(q - b);
                return MemberScan::Malformed;
            }
            pos = size_t(q + 1 - b);
            expectComma = true;
            return MemberScan::EventsStart;
        }
        const char* valueEnd = nullptr;
        const ScanStatus vs = scanJsonValue(q, e, valueEnd);
        if (vs == ScanStatus::Incomplete)
            return MemberScan::NeedMore;
        if (vs == ScanStatus::Malformed) {
            pos = size_t(q - b);
            return MemberScan::Malformed;
        }
        onMember(key, std::string_view(q, size_t(valueEnd - q)));
        pos = size_t(valueEnd - b);
        expectComma = true;
    }
}

class Loader {
public:
    Loader(std::unique_ptr<ByteSource> source, const LoadOptions& options, std::string origin,
           std::string_view memory = {})
        : m_source(std::move(source)), m_options(options), m_origin(std::move(origin)), m_memory(memory)
    {
        m_threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
        m_threads = std::min(m_threads, ArgStore::kMaxShards - 1);
    }

    LoadResult run();

private:
    bool cancelled() const { return m_options.cancel && m_options.cancel->load(std::memory_order_relaxed); }
    void reportProgress(bool force = false);
    bool readMore(std::string& buf, size_t want);
    bool scanHead();
    void producer();
    void worker(unsigned index);
    void merge();
    void handleResult(std::unique_ptr<Chunk> chunk, ChunkResult& result);
    bool recoverChunk(std::unique_ptr<Chunk> chunk, ChunkResult& failed);
    void addTail(std::string_view text);
    void finishTail();
    std::string positionText(uint64_t streamOffset);
    void fail(std::string message)
    {
        if (m_error.empty())
            m_error = std::move(message);
        m_abort.store(true);
    }

    std::unique_ptr<ByteSource> m_source;
    LoadOptions m_options;
    std::string m_origin;
    std::string_view m_memory; // the input, when loading from memory
    unsigned m_threads = 1;

    std::unique_ptr<Trace> m_trace;
    std::unique_ptr<TraceBuilder> m_builder;
    std::vector<std::string> m_warnings;
    std::string m_error;
    bool m_truncated = false;
    std::atomic<bool> m_abort{false};

    // Head scanning.
    std::string m_head;
    uint64_t m_streamPos = 0; // bytes of JSON read from the source so far
    bool m_sourceDone = false;
    bool m_topArray = false;
    std::string m_carry;           // event text read but not yet chunked
    uint64_t m_carryOffset = 0;    // stream offset of m_carry[0]

    // Pipeline.
    size_t m_chunkBytes = 8 << 20;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::unique_ptr<Chunk>> m_queue;
    std::map<uint64_t, std::pair<std::unique_ptr<Chunk>, ChunkResult>> m_results;
    uint64_t m_produced = 0;
    uint64_t m_merged = 0;
    bool m_producerDone = false;
    std::string m_producerError;
    std::atomic<uint64_t> m_inputPos{0};

    // After the events array.
    bool m_arrayClosed = false;
    std::string m_tail;
    uint64_t m_tailOffset = 0;

    Clock::time_point m_lastProgress{};
    std::unique_ptr<EventParser> m_recoveryParser;
    ParseCounters m_counters;
};

void Loader::reportProgress(bool force)
{
    if (!m_options.progress)
        return;
    const auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(20))
        return;
    m_lastProgress = now;
    m_options.progress(m_inputPos.load(std::memory_order_relaxed), m_source->inputSize());
}

bool Loader::readMore(std::string& buf, size_t want)
{
    if (m_sourceDone)
        return false;
    const size_t old = buf.size();
    buf.resize(old + want);
    const size_t got = m_source->read(buf.data() + old, want);
    buf.resize(old + got);
    m_streamPos += got;
    m_inputPos.store(m_source->inputPosition(), std::memory_order_relaxed);
    if (got == 0)
        m_sourceDone = true;
    return got > 0;
}

// Reads until the start of the events array, collecting top-level keys on the way.
bool Loader::scanHead()
{
    size_t pos = 0;
    // Skip a UTF-8 BOM and leading whitespace.
    while (true) {
        if (pos >= m_head.size() && !readMore(m_head, 64 << 10))
            break;
        if (pos == 0 && m_head.size() >= 3 && std::memcmp(m_head.data(), "\xef\xbb\xbf", 3) == 0)
            pos = 3;
        while (pos < m_head.size() && isJsonSpace(m_head[pos]))
            ++pos;
        if (pos < m_head.size())
            break;
    }
    if (pos >= m_head.size()) {
        fail(m_streamPos == 0 ? "empty file: not a trace" : "file holds only whitespace: not a trace");
        return false;
    }
    const char first = m_head[pos];
    if (first == '[') {
        m_topArray = true;
        m_trace->metadata().topLevelArray = true;
        m_carry = m_head.substr(pos + 1);
        m_carryOffset = pos + 1;
        m_head.clear();
        return true;
    }
    if (first != '{') {
        fail("not a JSON trace: starts with bytes " + hexBytes(std::string_view(m_head).substr(pos), 8) +
             describeBinary(std::string_view(m_head).substr(pos)));
        return false;
    }
    ++pos;
    bool expectComma = false;
    std::vector<std::string> keys;
    while (true) {
        const MemberScan r = scanMembers(m_head, pos, expectComma, [&](std::string_view k, std::string_view v) {
            keys.emplace_back(k);
            m_builder->addTopLevel(k, v);
        });
        if (r == MemberScan::EventsStart) {
            m_carry = m_head.substr(pos);
            m_carryOffset = pos;
            m_head.clear();
            return true;
        }
        if (r == MemberScan::Done) {
            std::string list;
            for (size_t i = 0; i < keys.size() && i < 8; ++i)
                list += (i ? ", " : "") + keys[i];
            fail("not a trace: the JSON object has no \"traceEvents\" array" +
                 (keys.empty() ? std::string(" (it is empty)") : " (its keys: " + list + ")"));
            return false;
        }
        if (r == MemberScan::Malformed) {
            fail("malformed JSON " + positionText(pos) + ": expected a key, ':' or ',' in the top-level object");
            return false;
        }
        if (!readMore(m_head, std::max<size_t>(64 << 10, m_head.size()))) {
            m_truncated = true;
            fail("truncated at byte " + std::to_string(m_streamPos) + " before the \"traceEvents\" array: 0 events");
            return false;
        }
    }
}

void Loader::producer()
{
    try {
        uint64_t index = 0;
        std::string carry = std::move(m_carry);
        uint64_t offset = m_carryOffset;
        const size_t pad = EventParser::padding();
        while (!m_abort.load() && !cancelled()) {
            // Bound the chunks in flight so memory stays proportional to the thread count.
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return m_abort.load() || m_produced - m_merged < 2 * m_threads + 2; });
                if (m_abort.load())
                    break;
            }
            auto c = std::make_unique<Chunk>();
            c->index = index;
            c->streamOffset = offset;
            size_t target = std::max(m_chunkBytes, carry.size() + (1 << 16));
            c->capacity = target + 2 + pad;
            c->data.reset(new char[c->capacity]);
            c->data[0] = '[';
            std::memcpy(c->text(), carry.data(), carry.size());
            size_t size = carry.size();
            carry.clear();
            bool eof = false;
            size_t cut = 0;
            while (true) {
                while (size < target) {
                    const size_t got = m_source->read(c->text() + size, target - size);
                    m_inputPos.store(m_source->inputPosition(), std::memory_order_relaxed);
                    if (got == 0) {
                        eof = true;
                        break;
                    }
                    size += got;
                    m_streamPos += got;
                }
                if (eof)
                    break;
                cut = findCut(c->text(), size, size);
                if (cut > 0)
                    break;
                // One event larger than the chunk: grow it.
                target *= 2;
                auto bigger = std::unique_ptr<char[]>(new char[target + 2 + pad]);
                std::memcpy(bigger.get(), c->data.get(), size + 1);
                c->data = std::move(bigger);
                c->capacity = target + 2 + pad;
            }
            if (eof) {
                c->textSize = size;
                c->last = true;
            } else {
                // The next chunk starts at the '{' after the separator.
                size_t next = cut;
                while (c->text()[next] != '{')
                    ++next;
                carry.assign(c->text() + next, size - next);
                offset = c->streamOffset + next;
                c->textSize = cut;
            }
            c->text()[c->textSize] = ']';
            std::memset(c->text() + c->textSize + 1, 0, std::min(pad, c->capacity - c->textSize - 2));
            {
                std::lock_guard lock(m_mutex);
                m_queue.push_back(std::move(c));
                ++m_produced;
            }
            m_cv.notify_all();
            ++index;
            if (eof)
                break;
        }
    } catch (const std::exception& e) {
        std::lock_guard lock(m_mutex);
        m_producerError = e.what();
    }
    {
        std::lock_guard lock(m_mutex);
        m_producerDone = true;
    }
    m_cv.notify_all();
}

void Loader::worker(unsigned index)
{
    EventParser parser(m_trace->args().shard(index));
    while (true) {
        std::unique_ptr<Chunk> c;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return m_abort.load() || !m_queue.empty() || m_producerDone; });
            if (m_abort.load())
                return;
            if (m_queue.empty()) {
                if (m_producerDone)
                    return;
                continue;
            }
            c = std::move(m_queue.front());
            m_queue.pop_front();
        }
        ChunkResult r;
        r.index = c->index;
        parser.parse(c->data.get(), c->textSize, c->capacity, r);
        {
            std::lock_guard lock(m_mutex);
            const uint64_t idx = c->index;
            m_results.emplace(idx, std::make_pair(std::move(c), std::move(r)));
        }
        m_cv.notify_all();
    }
}

std::string Loader::positionText(uint64_t streamOffset)
{
    // Line numbers are only needed on the error path, so they are counted then, by reading the
    // input again from the start.
    uint64_t line = 1, column = 1;
    bool counted = false;
    std::string err;
    std::unique_ptr<ByteSource> again;
    if (m_memory.data())
        again = memoryByteSource(m_memory);
    else if (!m_origin.empty())
        again = openByteSource(m_origin, err);
    if (again) {
        std::vector<char> buf(1 << 20);
        uint64_t pos = 0;
        uint64_t lineStart = 0;
        try {
            while (pos < streamOffset) {
                const size_t want = size_t(std::min<uint64_t>(buf.size(), streamOffset - pos));
                const size_t got = again->read(buf.data(), want);
                if (got == 0)
                    break;
                for (size_t i = 0; i < got; ++i) {
                    if (buf[i] == '\n') {
                        ++line;
                        lineStart = pos + i + 1;
                    }
                }
                pos += got;
            }
            column = streamOffset - lineStart + 1;
            counted = true;
        } catch (const std::exception&) {
        }
    }
    std::string s = "at byte " + std::to_string(streamOffset);
    if (counted)
        s += " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
    return s;
}

void Loader::addTail(std::string_view text)
{
    m_tail.append(text);
}

void Loader::finishTail()
{
    if (m_topArray) {
        // Nothing may follow the array but whitespace.
        const char* p = skipJsonSpace(m_tail.data(), m_tail.data() + m_tail.size());
        if (p != m_tail.data() + m_tail.size())
            m_warnings.push_back("ignored " + std::to_string(m_tail.data() + m_tail.size() - p) +
                                 " bytes after the event array");
        return;
    }
    size_t pos = 0;
    bool expectComma = true;
    const MemberScan r = scanMembers(m_tail, pos, expectComma, [&](std::string_view k, std::string_view v) {
        if (k == "traceEvents")
            return;
        m_builder->addTopLevel(k, v);
    });
    if (r == MemberScan::NeedMore) {
        m_truncated = true;
        m_warnings.push_back("truncated at byte " + std::to_string(m_streamPos) +
                             ", after the events: the end of the top-level object is missing");
    } else if (r == MemberScan::Malformed) {
        m_warnings.push_back("ignored malformed JSON after the events " + positionText(m_tailOffset + pos));
    } else if (r == MemberScan::EventsStart) {
        m_warnings.push_back("ignored a second \"traceEvents\" array " + positionText(m_tailOffset + pos));
    }
}

// Handles a chunk that did not parse cleanly. Returns false when the load must stop.
bool Loader::recoverChunk(std::unique_ptr<Chunk> chunk, ChunkResult& failed)
{
    if (!m_recoveryParser)
        m_recoveryParser = std::make_unique<EventParser>(m_trace->args().shard(m_threads));
    // Keep what parsed before the failure.
    const size_t good = failed.goodEnd;
    failed.status = ChunkResult::Status::Ok;
    m_builder->addChunk(failed);

    // The rest of this chunk, starting at the next event.
    std::string rest(chunk->view().substr(good));
    uint64_t restOffset = chunk->streamOffset + good;
    {
        size_t s = 0;
        while (s < rest.size() && (isJsonSpace(rest[s]) || rest[s] == ','))
            ++s;
        rest.erase(0, s);
        restOffset += s;
    }
    const size_t firstError = failed.errorOffset > good ? failed.errorOffset - good : 0;
    std::string firstMessage = failed.error;
    bool last = chunk->last;
    chunk.reset();

    auto parseText = [&](const std::string& text, uint64_t offset, ChunkResult& r) {
        auto c = makeChunk(text, offset);
        r = ChunkResult();
        m_recoveryParser->parse(c->data.get(), c->textSize, c->capacity, r);
    };

    // 1. A wrong guess at the chunk boundary: join with the following chunks and try again.
    while (!last) {
        std::unique_ptr<Chunk> next;
        ChunkResult nextResult;
        {
            std::unique_lock lock(m_mutex);
            const uint64_t want = m_merged + 1;
            m_cv.wait(lock, [&] { return m_abort.load() || m_results.count(want) || (m_producerDone && m_produced <= want); });
            if (m_abort.load())
                return false;
            auto it = m_results.find(want);
            if (it == m_results.end())
                break;
            next = std::move(it->second.first);
            m_results.erase(it);
            ++m_merged;
        }
        m_cv.notify_all();
        const size_t restLen = rest.size();
        rest.push_back(',');
        rest.append(next->view());
        last = next->last;
        next.reset();
        ChunkResult r;
        parseText(rest, restOffset, r);
        if (r.status != ChunkResult::Status::Error) {
            handleResult(makeChunk(rest, restOffset), r);
            return !m_abort.load();
        }
        if (r.errorOffset < restLen) {
            // Still failing inside the original chunk: the JSON itself is bad there.
            rest.resize(restLen);
            break;
        }
        // The failure moved past the old boundary; keep what parsed and continue from there.
        const size_t g = r.goodEnd;
        r.status = ChunkResult::Status::Ok;
        m_builder->addChunk(r);
        rest.erase(0, g);
        restOffset += g;
        size_t s = 0;
        while (s < rest.size() && (isJsonSpace(rest[s]) || rest[s] == ','))
            ++s;
        rest.erase(0, s);
        restOffset += s;
    }

    // 2. Known Kineto bugs (bare inf/N/A, stray backslashes and quotes, control characters).
    SanitizeReport report;
    std::string repaired = sanitizeJson(rest, report);
    if (report.total() > 0) {
        ChunkResult r;
        parseText(repaired, restOffset, r);
        if (r.status != ChunkResult::Status::Error) {
            m_warnings.push_back("repaired invalid JSON written by a known profiler bug (" + report.describe() +
                                 "), first " + positionText(restOffset + uint64_t(report.firstOffset)));
            // Offsets in the repaired text differ from the file's; the tail (if any) is short.
            handleResult(makeChunk(repaired, restOffset), r);
            return !m_abort.load();
        }
    }

    // 3. The input ended inside an event: keep every complete event before it.
    if (last) {
        std::string& text = report.total() > 0 ? repaired : rest;
        size_t cut = text.size();
        for (int attempt = 0; attempt < 64; ++attempt) {
            cut = findCut(text.data(), text.size(), cut);
            if (cut == 0)
                break;
            ChunkResult r;
            parseText(text.substr(0, cut), restOffset, r);
            if (r.status == ChunkResult::Status::Ok) {
                m_builder->addChunk(r);
                m_truncated = true;
                return true;
            }
            if (r.status == ChunkResult::Status::ArrayClosed) {
                handleResult(makeChunk(text.substr(0, cut), restOffset), r);
                return !m_abort.load();
            }
            if (r.errorOffset < r.goodEnd || r.goodEnd + 4096 < cut) {
                // It fails well before the end: not a truncation.
                break;
            }
            cut = cut - 1;
        }
        // Nothing before the failure parses: if the failure is at the very end, it is a
        // truncation inside the first event of this chunk.
        if (firstError + 1 >= rest.size() || m_source->truncatedInput()) {
            m_truncated = true;
            return true;
        }
    }
    fail("malformed JSON " + positionText(restOffset + firstError) + ": " + firstMessage);
    return false;
}

void Loader::handleResult(std::unique_ptr<Chunk> chunk, ChunkResult& result)
{
    if (m_arrayClosed) {
        // Everything after the events array is top-level JSON, whatever the parser made of it.
        addTail(",");
        addTail(chunk->view());
        return;
    }
    switch (result.status) {
    case ChunkResult::Status::Ok:
        m_builder->addChunk(result);
        if (chunk->last)
            m_truncated = true; // the array never closed
        return;
    case ChunkResult::Status::ArrayClosed:
        m_builder->addChunk(result);
        m_arrayClosed = true;
        m_tailOffset = chunk->streamOffset + result.arrayEnd;
        addTail(chunk->view().substr(result.arrayEnd));
        return;
    case ChunkResult::Status::Error:
        recoverChunk(std::move(chunk), result);
        return;
    }
}

void Loader::merge()
{
    while (true) {
        std::unique_ptr<Chunk> chunk;
        ChunkResult result;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait_for(lock, std::chrono::milliseconds(20), [&] {
                return m_abort.load() || m_results.count(m_merged) || (m_producerDone && m_produced == m_merged);
            });
            if (m_abort.load())
                return;
            auto it = m_results.find(m_merged);
            if (it == m_results.end()) {
                if (m_producerDone && m_produced == m_merged)
                    return;
                lock.unlock();
                if (cancelled()) {
                    m_abort.store(true);
                    m_cv.notify_all();
                    return;
                }
                reportProgress();
                continue;
            }
            chunk = std::move(it->second.first);
            result = std::move(it->second.second);
            m_results.erase(it);
        }
        handleResult(std::move(chunk), result);
        {
            std::lock_guard lock(m_mutex);
            ++m_merged;
        }
        m_cv.notify_all();
        if (cancelled()) {
            m_abort.store(true);
            m_cv.notify_all();
            return;
        }
        reportProgress();
    }
}

LoadResult Loader::run()
{
    const auto t0 = Clock::now();
    LoadResult result;
    m_trace = std::make_unique<Trace>();
    m_builder = std::make_unique<TraceBuilder>(*m_trace);
    result.stats.compressed = m_source->compressed();
    result.stats.inputBytes = m_source->inputSize();

    try {
        if (!scanHead()) {
            result.error = m_error;
            result.truncated = m_truncated;
            return result;
        }
    } catch (const std::exception& e) {
        result.error = e.what();
        return result;
    }
    // Chunks: a few per thread for small inputs, 8 MiB otherwise.
    const uint64_t expected = m_source->compressed() ? m_source->inputSize() * 15 : m_source->inputSize();
    if (m_options.chunkBytes)
        m_chunkBytes = m_options.chunkBytes;
    else
        m_chunkBytes = size_t(std::clamp<uint64_t>(expected / (4 * m_threads), 256 << 10, 8 << 20));
    for (unsigned i = 0; i <= m_threads; ++i)
        m_trace->args().shard(i);

    std::thread producerThread([this] { producer(); });
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < m_threads; ++i)
        workers.emplace_back([this, i] { worker(i); });
    merge();
    m_abort.store(m_abort.load() || !m_error.empty());
    if (m_abort.load())
        m_cv.notify_all();
    producerThread.join();
    {
        std::lock_guard lock(m_mutex);
        m_producerDone = true;
    }
    m_cv.notify_all();
    for (auto& w : workers)
        w.join();
    result.stats.parseSeconds = secondsSince(t0);

    if (cancelled()) {
        result.cancelled = true;
        result.error = "cancelled";
        return result;
    }
    if (!m_producerError.empty()) {
        // I/O or gzip failure: report it, but keep what was read when there is something.
        if (m_builder->eventCount() == 0) {
            result.error = m_producerError;
            return result;
        }
        m_warnings.push_back(m_producerError + "; loaded the events before it");
        m_truncated = true;
    }
    if (!m_error.empty()) {
        result.error = m_error;
        return result;
    }
    if (m_arrayClosed)
        finishTail();

    const auto t1 = Clock::now();
    m_builder->finish(m_threads);
    result.stats.finishSeconds = secondsSince(t1);

    const ParseCounters& pc = m_builder->counters();
    result.stats.events = pc.events + pc.notObjects;
    std::memcpy(result.stats.byPhase, pc.byPhase, sizeof pc.byPhase);
    result.stats.jsonBytes = m_streamPos;
    if (pc.events == 0 && m_trace->metadata().entries.empty() && m_topArray && pc.notObjects > 0) {
        result.error = "not a trace: the top-level array holds no event objects";
        return result;
    }
    for (auto& w : m_builder->warnings())
        m_warnings.push_back(std::move(w));
    if (m_truncated) {
        m_warnings.insert(m_warnings.begin(), "truncated at byte " + std::to_string(m_streamPos) + ": " +
                                                  std::to_string(pc.events) + " events loaded" +
                                                  (m_source->truncatedInput() ? " (the gzip stream is cut short)" : ""));
    }
    result.truncated = m_truncated;
    result.warnings = std::move(m_warnings);
    result.stats.seconds = secondsSince(t0);
    reportProgress(true);
    result.trace = std::move(m_trace);
    return result;
}

} // namespace

LoadResult loadTraceFile(const std::string& path, const LoadOptions& options)
{
    std::string error;
    auto source = openByteSource(path, error);
    if (!source) {
        LoadResult r;
        r.error = error;
        return r;
    }
    Loader loader(std::move(source), options, path);
    return loader.run();
}

LoadResult loadTraceData(std::string_view data, const LoadOptions& options)
{
    Loader loader(memoryByteSource(data), options, "<memory>", data);
    return loader.run();
}

} // namespace ks
