#pragma once

#include "core/io/chunkrecovery.h"
#include "core/io/tracereader.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

class ByteSource;
class Chunk;
class ChunkProducer;
class EventParser;
class TraceBuilder;

// Loads a Kineto / Chrome JSON trace. Pipeline: a producer thread cuts the input into chunks;
// worker threads parse them in parallel; the worker that completes the oldest unmerged chunk merges
// it (and any younger ones already parsed) into the builder, in file order. The calling thread only
// reports progress and watches for cancel. A chunk that fails to parse goes to ChunkRecovery.
class Loader final : private ChunkRecovery::Host {
public:
    // origin is the path the source was opened from, or a name for memory (then memory is the
    // input): error positions are counted by reading the input again.
    Loader(std::unique_ptr<ByteSource> source, const LoadOptions& options, std::string origin,
           std::string_view memory = {});
    ~Loader();
    Loader(const Loader&) = delete;
    Loader& operator=(const Loader&) = delete;

    LoadResult run();

private:
    using Clock = std::chrono::steady_clock;

    bool cancelled() const { return m_options.cancel && m_options.cancel->load(std::memory_order_relaxed); }
    void reportProgress(bool force = false);
    bool readMore(std::string& buf, size_t want);
    bool scanHead();

    // Pipeline.
    void producerLoop();
    void workerLoop(unsigned index);
    void mergeReady(std::unique_lock<std::mutex>& lock);
    Chunk* acquireBuffer();

    // Results, in file order.
    void handleResult(Chunk& chunk, ChunkResult& result);
    void finishTail();
    void noteDuplicates(const ChunkResult& r, uint64_t textOffset);
    void noteTopLevelKey(std::string_view key, uint64_t quoteOffset);
    std::string tooDeepMessage(uint64_t streamOffset);

    // ChunkRecovery::Host.
    bool takeNextText(std::string& text, bool& last) override;
    void addParsed(std::string_view text, uint64_t offset, ChunkResult& r, bool last) override;
    void appendTail(std::string_view text) override { m_tail.append(text); }
    void warn(std::string message) override { m_warnings.push_back(std::move(message)); }
    void fail(std::string message) override;
    std::string positionText(uint64_t streamOffset) override;

    std::unique_ptr<ByteSource> m_source;
    LoadOptions m_options;
    std::string m_origin;
    std::string_view m_memory; // the input, when loading from memory
    unsigned m_threads = 1;

    std::unique_ptr<Trace> m_trace;
    std::unique_ptr<TraceBuilder> m_builder;
    std::vector<std::string> m_warnings;
    std::mutex m_errorMutex;
    std::string m_error;
    bool m_truncated = false;
    std::atomic<bool> m_abort{false};

    // Head scanning.
    std::string m_head;
    uint64_t m_streamPos = 0; // bytes of JSON read from the source so far
    bool m_sourceDone = false;
    bool m_topArray = false;
    std::string m_carry;        // event text read but not yet chunked
    uint64_t m_carryOffset = 0; // stream offset of m_carry[0]

    // Pipeline state, guarded by m_mutex.
    size_t m_chunkBytes = 2 << 20;
    std::unique_ptr<ChunkProducer> m_producer;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<std::unique_ptr<Chunk>> m_buffers;
    std::vector<Chunk*> m_freeBuffers;
    size_t m_maxBuffers = 4;
    std::vector<std::unique_ptr<EventParser>> m_parsers;
    std::vector<std::unique_ptr<ChunkResult>> m_freeResults;
    std::deque<Chunk*> m_queue;
    std::map<uint64_t, std::pair<Chunk*, std::unique_ptr<ChunkResult>>> m_ready;
    uint64_t m_produced = 0;
    uint64_t m_nextMerge = 0;
    uint64_t m_consumed = 0; // chunks the merge in progress took for recovery
    bool m_merging = false;
    bool m_producerDone = false;
    std::string m_producerError;
    std::atomic<uint64_t> m_inputPos{0};

    // After the events array.
    bool m_arrayClosed = false;
    std::string m_tail;
    uint64_t m_tailOffset = 0;

    // Repeated keys: in events (counted by the parsers) and in the top-level object.
    uint64_t m_firstDuplicateAt = UINT64_MAX;
    std::string m_firstDuplicateKey;
    std::set<std::string, std::less<>> m_topKeys;
    uint64_t m_topDuplicates = 0;
    uint64_t m_firstTopDuplicateAt = 0;
    std::string m_firstTopDuplicateKey;

    Clock::time_point m_lastProgress{};
    // Created on the first chunk that fails to parse.
    std::unique_ptr<ChunkRecovery> m_recovery;
};

} // namespace ks
