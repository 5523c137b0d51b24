#pragma once

#include "core/io/rawevent.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ks {

class ArgStore;
class Chunk;
class EventParser;

// Recovers from a chunk that did not parse. The loader cuts the events array at guessed event
// boundaries, so a failure may be a wrong cut rather than bad input; telling the two apart (and
// repairing what known profiler bugs write) needs the chunks that follow and the loader's state,
// which it reaches through Host. Runs on the merging thread, in file order, one chunk at a time.
class ChunkRecovery {
public:
    // What recovery needs from the loader.
    class Host {
    public:
        // Takes the text of the next unmerged chunk, prefixed with the separator its cut dropped.
        virtual bool takeNextText(std::string& text, bool& last) = 0;
        // Hands parsed events (text at stream offset `offset`) to the trace, in file order.
        virtual void addParsed(std::string_view text, uint64_t offset, ChunkResult& r, bool last) = 0;
        // Text after the events array, read later as top-level JSON.
        virtual void appendTail(std::string_view text) = 0;
        virtual void warn(std::string message) = 0;
        virtual void fail(std::string message) = 0;
        virtual std::string positionText(uint64_t streamOffset) = 0;

    protected:
        ~Host() = default;
    };

    // The recovery parser writes arguments into shard `shardIndex` of args, created only if a
    // re-parse is needed (most loads never get here).
    ChunkRecovery(Host& host, ArgStore& args, unsigned shardIndex);
    ~ChunkRecovery();
    ChunkRecovery(const ChunkRecovery&) = delete;
    ChunkRecovery& operator=(const ChunkRecovery&) = delete;

    void recover(const Chunk& chunk, ChunkResult& failed);

private:
    void parseText(const std::string& text, ChunkResult& out);

    Host& m_host;
    ArgStore& m_args;
    unsigned m_shardIndex;
    std::unique_ptr<EventParser> m_parser;
    ChunkResult m_result;
};

} // namespace ks
