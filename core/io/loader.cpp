#include "core/io/loader.h"

#include "core/io/bytesource.h"
#include "core/io/chunk.h"
#include "core/io/chunkproducer.h"
#include "core/io/eventparser.h"
#include "core/io/jsonscan.h"
#include "core/io/tracebuilder.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace ks {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

Loader::Loader(std::unique_ptr<ByteSource> source, const LoadOptions& options, std::string origin,
               std::string_view memory)
    : m_source(std::move(source)), m_options(options), m_origin(std::move(origin)), m_memory(memory)
{
    m_threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    m_threads = std::min(m_threads, ArgStore::kMaxShards - 1);
}

Loader::~Loader() = default;

void Loader::fail(std::string message)
{
    std::lock_guard lock(m_errorMutex);
    if (m_error.empty()) m_error = std::move(message);
    m_abort.store(true);
}

void Loader::reportProgress(bool force)
{
    if (!m_options.progress) return;
    const auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(20)) return;
    m_lastProgress = now;
    m_options.progress(force ? m_source->inputSize() : m_inputPos.load(std::memory_order_relaxed),
                       m_source->inputSize());
}

bool Loader::readMore(std::string& buf, size_t want)
{
    if (m_sourceDone) return false;
    const size_t old = buf.size();
    buf.resize(old + want);
    const size_t got = m_source->read(buf.data() + old, want);
    buf.resize(old + got);
    m_streamPos += got;
    m_inputPos.store(m_source->inputPosition(), std::memory_order_relaxed);
    if (got == 0) m_sourceDone = true;
    return got > 0;
}

// Reads until the start of the events array, collecting top-level keys on the way.
bool Loader::scanHead()
{
    size_t pos = 0;
    // Skip a UTF-8 BOM and leading whitespace.
    while (true) {
        if (pos >= m_head.size() && !readMore(m_head, 64 << 10)) break;
        if (pos == 0 && m_head.size() >= 3 && std::memcmp(m_head.data(), "\xef\xbb\xbf", 3) == 0) pos = 3;
        while (pos < m_head.size() && isJsonSpace(m_head[pos]))
            ++pos;
        if (pos < m_head.size()) break;
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
    uint64_t tooDeepAt = UINT64_MAX;
    while (true) {
        const MemberScan r =
            scanMembers(m_head, pos, expectComma, [&](std::string_view k, std::string_view v) {
                if (tooDeepAt != UINT64_MAX) return;
                if (const size_t at = findTooDeep(v, kMaxJsonDepth - 1); at != std::string_view::npos) {
                    tooDeepAt = uint64_t(v.data() + at - m_head.data());
                    return;
                }
                keys.emplace_back(k);
                noteTopLevelKey(k, uint64_t(k.data() - 1 - m_head.data()));
                m_builder->addTopLevel(k, v);
            });
        if (tooDeepAt != UINT64_MAX) {
            fail(tooDeepMessage(tooDeepAt));
            return false;
        }
        if (r == MemberScan::EventsStart) {
            m_carry = m_head.substr(pos);
            m_carryOffset = pos;
            m_head.clear();
            return true;
        }
        if (r == MemberScan::Done) {
            std::string list;
            for (size_t i = 0; i < keys.size() && i < 8; ++i)
                list += (i ? ", " : "") + escapeText(keys[i]);
            fail("not a trace: the JSON object has no \"traceEvents\" array" +
                 (keys.empty() ? std::string(" (it is empty)") : " (its keys: " + list + ")"));
            return false;
        }
        if (r == MemberScan::EventsNotArray) {
            fail("not a trace: \"traceEvents\" is not an array " + positionText(pos));
            return false;
        }
        if (r == MemberScan::Malformed) {
            fail("malformed JSON " + positionText(pos) +
                 ": expected a key, ':' or ',' in the top-level object");
            return false;
        }
        if (!readMore(m_head, std::max<size_t>(64 << 10, m_head.size()))) {
            m_truncated = true;
            fail("truncated at byte " + std::to_string(m_streamPos) +
                 " before the \"traceEvents\" array, 0 events loaded");
            return false;
        }
    }
}

// --- pipeline -------------------------------------------------------------------------------------

Chunk* Loader::acquireBuffer()
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock,
              [&] { return m_abort.load() || !m_freeBuffers.empty() || m_buffers.size() < m_maxBuffers; });
    if (m_abort.load()) return nullptr;
    if (!m_freeBuffers.empty()) {
        Chunk* c = m_freeBuffers.back();
        m_freeBuffers.pop_back();
        return c;
    }
    m_buffers.push_back(std::make_unique<Chunk>(m_chunkBytes + m_chunkBytes / 2 + (64 << 10)));
    return m_buffers.back().get();
}

void Loader::producerLoop()
{
    while (!m_abort.load()) {
        Chunk* c = acquireBuffer();
        if (!c) break;
        const bool got = m_producer->fill(*c);
        m_inputPos.store(m_source->inputPosition(), std::memory_order_relaxed);
        const bool last = c->last;
        {
            std::lock_guard lock(m_mutex);
            if (got) {
                m_queue.push_back(c);
                ++m_produced;
            } else {
                m_freeBuffers.push_back(c);
            }
        }
        m_cv.notify_all();
        if (!got || last) break;
    }
    std::lock_guard lock(m_mutex);
    m_producerDone = true;
    m_producerError = m_producer->error();
    m_cv.notify_all();
}

void Loader::workerLoop(unsigned index)
{
    EventParser& parser = *m_parsers[index];
    while (true) {
        Chunk* c = nullptr;
        std::unique_ptr<ChunkResult> r;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return m_abort.load() || !m_queue.empty() || m_producerDone; });
            if (m_abort.load() || m_queue.empty()) return;
            c = m_queue.front();
            m_queue.pop_front();
            if (!m_freeResults.empty()) {
                r = std::move(m_freeResults.back());
                m_freeResults.pop_back();
            }
        }
        if (!r) r = std::make_unique<ChunkResult>();
        r->index = c->index;
        parser.parse(c->buffer(), c->textSize, c->bufferCapacity(), *r);
        std::unique_lock lock(m_mutex);
        m_ready.emplace(c->index, std::make_pair(c, std::move(r)));
        if (!m_merging) {
            m_merging = true;
            mergeReady(lock);
            m_merging = false;
        }
        lock.unlock();
        m_cv.notify_all();
    }
}

// Merges parsed chunks in file order while the next one is ready. Called with the lock held; drops
// it while the builder works.
void Loader::mergeReady(std::unique_lock<std::mutex>& lock)
{
    while (!m_abort.load()) {
        auto it = m_ready.find(m_nextMerge);
        if (it == m_ready.end()) return;
        Chunk* c = it->second.first;
        std::unique_ptr<ChunkResult> r = std::move(it->second.second);
        m_ready.erase(it);
        m_consumed = 0;
        lock.unlock();
        try {
            handleResult(*c, *r);
        } catch (const std::exception& e) {
            fail(std::string("cannot load the trace: ") + e.what());
        }
        lock.lock();
        m_freeBuffers.push_back(c);
        m_freeResults.push_back(std::move(r));
        m_nextMerge += 1 + m_consumed;
        m_cv.notify_all();
    }
}

// For recovery: the text of the chunk after the ones merged or taken so far, whatever state it is in
// (queued, being parsed, or parsed), with the separator the cut dropped. False when there is none.
bool Loader::takeNextText(std::string& text, bool& last)
{
    std::unique_lock lock(m_mutex);
    const uint64_t want = m_nextMerge + 1 + m_consumed;
    m_cv.wait(lock, [&] {
        return m_abort.load() || m_ready.count(want) ||
               (!m_queue.empty() && m_queue.front()->index == want) || (m_producerDone && m_produced <= want);
    });
    Chunk* c = nullptr;
    if (auto it = m_ready.find(want); it != m_ready.end()) {
        c = it->second.first;
        m_freeResults.push_back(std::move(it->second.second)); // its parse is superseded
        m_ready.erase(it);
    } else if (!m_queue.empty() && m_queue.front()->index == want) {
        c = m_queue.front();
        m_queue.pop_front();
    }
    if (!c || m_abort.load()) return false;
    ++m_consumed;
    text += c->separator;
    text.append(c->view());
    last = c->last;
    m_freeBuffers.push_back(c);
    lock.unlock();
    m_cv.notify_all();
    return true;
}

// --- results --------------------------------------------------------------------------------------

void Loader::handleResult(Chunk& chunk, ChunkResult& result)
{
    if (m_arrayClosed) {
        // Everything after the events array is top-level JSON, whatever the parser made of it.
        m_tail += chunk.separator;
        m_tail.append(chunk.view());
        return;
    }
    switch (result.status) {
    case ChunkResult::Status::Ok:
        noteDuplicates(result, chunk.streamOffset);
        m_builder->addChunk(result);
        if (chunk.last) m_truncated = true; // the array never closed
        return;
    case ChunkResult::Status::ArrayClosed:
        noteDuplicates(result, chunk.streamOffset);
        m_builder->addChunk(result);
        m_arrayClosed = true;
        m_tailOffset = chunk.streamOffset + result.arrayEnd;
        m_tail.append(chunk.view().substr(result.arrayEnd));
        return;
    case ChunkResult::Status::Error:
        // Its parser shard is the one after the workers'.
        if (!m_recovery) {
            ChunkRecovery::Host& host = *this;
            m_recovery = std::make_unique<ChunkRecovery>(host, m_trace->args(), m_threads);
        }
        m_recovery->recover(chunk, result);
        return;
    }
}

void Loader::noteDuplicates(const ChunkResult& r, uint64_t textOffset)
{
    if (r.firstDuplicateOffset == SIZE_MAX || m_firstDuplicateAt != UINT64_MAX) return;
    m_firstDuplicateAt = textOffset + r.firstDuplicateOffset;
    m_firstDuplicateKey = r.firstDuplicateKey;
}

// Python's json keeps the last value of a repeated key; so does TraceMetadata::set (the reader's
// own "traceEvents" is the exception: the first array is read, a later one ignored with a warning).
void Loader::noteTopLevelKey(std::string_view key, uint64_t quoteOffset)
{
    if (m_topKeys.insert(std::string(key)).second) return;
    if (m_topDuplicates++ == 0) {
        m_firstTopDuplicateAt = quoteOffset;
        m_firstTopDuplicateKey = key;
    }
}

void Loader::addParsed(std::string_view text, uint64_t offset, ChunkResult& r, bool last)
{
    noteDuplicates(r, offset);
    m_builder->addChunk(r);
    if (r.status == ChunkResult::Status::ArrayClosed) {
        m_arrayClosed = true;
        m_tailOffset = offset + r.arrayEnd;
        m_tail.append(text.substr(r.arrayEnd));
    } else if (last) {
        m_truncated = true;
    }
}

std::string Loader::tooDeepMessage(uint64_t streamOffset)
{
    return "JSON nested too deeply " + positionText(streamOffset) + ": arrays and objects nested more than " +
           std::to_string(kMaxJsonDepth) + " deep";
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
                if (got == 0) break;
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
    if (counted) s += " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
    return s;
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
    uint64_t tooDeepAt = UINT64_MAX;
    const MemberScan r = scanMembers(m_tail, pos, expectComma, [&](std::string_view k, std::string_view v) {
        if (tooDeepAt != UINT64_MAX || k == "traceEvents") return;
        if (const size_t at = findTooDeep(v, kMaxJsonDepth - 1); at != std::string_view::npos) {
            tooDeepAt = m_tailOffset + uint64_t(v.data() + at - m_tail.data());
            return;
        }
        noteTopLevelKey(k, m_tailOffset + uint64_t(k.data() - 1 - m_tail.data()));
        m_builder->addTopLevel(k, v);
    });
    if (tooDeepAt != UINT64_MAX) {
        fail(tooDeepMessage(tooDeepAt));
        return;
    }
    if (r == MemberScan::NeedMore)
        m_truncated = true; // the end of the top-level object is missing
    else if (r == MemberScan::Malformed)
        m_warnings.push_back("ignored malformed JSON after the events " + positionText(m_tailOffset + pos));
    else if (r == MemberScan::EventsStart || r == MemberScan::EventsNotArray)
        m_warnings.push_back("ignored a second \"traceEvents\" array " + positionText(m_tailOffset + pos));
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
    // Chunks of a few MiB keep the text a worker parses in cache; small inputs still get a few
    // chunks per thread.
    const uint64_t expected = m_source->compressed() ? m_source->inputSize() * 15 : m_source->inputSize();
    if (m_options.chunkBytes)
        m_chunkBytes = m_options.chunkBytes;
    else
        m_chunkBytes = size_t(std::clamp<uint64_t>(expected / (4 * m_threads), 64 << 10, 1 << 20));
    // One chunk being read, one parsing per worker, one waiting: enough to keep everyone busy.
    m_maxBuffers = m_threads + 2;
    for (unsigned i = 0; i < m_threads; ++i) {
        m_parsers.push_back(std::make_unique<EventParser>(m_trace->args().shard(i), i));
        m_parsers.back()->reserve(m_chunkBytes + m_chunkBytes / 2 + (64 << 10));
    }
    m_producer = std::make_unique<ChunkProducer>(*m_source, m_chunkBytes, std::move(m_carry), m_carryOffset,
                                                 m_streamPos);

    std::thread producerThread([this] { producerLoop(); });
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < m_threads; ++i)
        workers.emplace_back([this, i] { workerLoop(i); });
    while (true) {
        std::unique_lock lock(m_mutex);
        const bool done = m_cv.wait_for(lock, std::chrono::milliseconds(20), [&] {
            return m_abort.load() || (m_producerDone && m_nextMerge >= m_produced && !m_merging);
        });
        lock.unlock();
        if (done) break;
        if (cancelled()) {
            m_abort.store(true);
            m_cv.notify_all();
            break;
        }
        reportProgress();
    }
    m_cv.notify_all();
    producerThread.join();
    {
        std::lock_guard lock(m_mutex);
        m_producerDone = true;
    }
    m_cv.notify_all();
    for (auto& w : workers)
        w.join();
    m_streamPos = m_producer->streamPos();
    result.stats.parseSeconds = secondsSince(t0);

    if (cancelled()) {
        result.cancelled = true;
        result.error = "cancelled";
        return result;
    }
    if (!m_error.empty()) {
        result.error = m_error;
        return result;
    }
    try {
        if (m_arrayClosed) finishTail();
        if (!m_error.empty()) {
            result.error = m_error;
            return result;
        }
        const ParseCounters& pc = m_builder->counters();
        if (m_source->truncatedInput())
            m_truncated = true; // even when the text is complete, its checksum is missing
        if (!m_producerError.empty()) {
            // An I/O or gzip failure ended the text early; what came before it is kept.
            if (pc.events == 0) {
                result.error = m_producerError;
                return result;
            }
            m_warnings.push_back(m_producerError + "; loaded the events before it");
            m_truncated = true;
        }
        result.stats.events = pc.events + pc.notObjects;
        std::memcpy(result.stats.byPhase, pc.byPhase, sizeof pc.byPhase);
        result.stats.jsonBytes = m_streamPos;
        const std::string truncation = "truncated at byte " + std::to_string(m_streamPos) + ", " +
                                       std::to_string(pc.events) + " events loaded" +
                                       (m_source->truncatedInput() ? " (the gzip stream is cut short)" : "");
        if (m_truncated && pc.events == 0) {
            result.error = truncation;
            result.truncated = true;
            return result;
        }
        if (pc.events == 0 && m_topArray && pc.notObjects > 0) {
            result.error = "not a trace: the top-level array holds no event objects";
            return result;
        }

        const auto t1 = Clock::now();
        m_builder->finish(m_threads);
        result.stats.finishSeconds = secondsSince(t1);

        for (auto& w : m_builder->warnings())
            m_warnings.push_back(std::move(w));
        if (pc.duplicateKeys)
            m_warnings.push_back(std::to_string(pc.duplicateKeys) +
                                 " keys were repeated within an event; the last value of each was used, as "
                                 "Python's json does (first: \"" +
                                 escapeText(m_firstDuplicateKey) + "\" " + positionText(m_firstDuplicateAt) +
                                 ")");
        if (m_topDuplicates)
            m_warnings.push_back(
                std::to_string(m_topDuplicates) +
                " top-level keys were repeated; the last value of each was used, as Python's "
                "json does (first: \"" +
                escapeText(m_firstTopDuplicateKey) + "\" " + positionText(m_firstTopDuplicateAt) + ")");
        if (pc.events == 0) m_warnings.push_back("the trace holds no events");
        if (m_truncated) m_warnings.insert(m_warnings.begin(), truncation);
    } catch (const std::exception& e) {
        result.error = std::string("cannot load the trace: ") + e.what();
        return result;
    }
    result.truncated = m_truncated;
    result.warnings = std::move(m_warnings);
    result.stats.seconds = secondsSince(t0);
    reportProgress(true);
    result.trace = std::move(m_trace);
    return result;
}

} // namespace ks
