#include "core/io/chunkrecovery.h"

#include "core/io/chunk.h"
#include "core/io/eventparser.h"
#include "core/io/jsonscan.h"
#include "core/model/args.h"

namespace ks {

namespace {

// Joined chunks are re-parsed as one; past this size a "wrong cut" can no longer be the explanation.
constexpr size_t kJoinLimit = size_t(256) << 20;

} // namespace

ChunkRecovery::ChunkRecovery(Host& host, ArgStore& args, unsigned shardIndex)
    : m_host(host), m_args(args), m_shardIndex(shardIndex)
{}

ChunkRecovery::~ChunkRecovery() = default;

void ChunkRecovery::parseText(const std::string& text, ChunkResult& out)
{
    if (!m_parser) m_parser = std::make_unique<EventParser>(m_args.shard(m_shardIndex), m_shardIndex);
    std::string buffer;
    buffer.reserve(text.size() + 2 + EventParser::padding());
    buffer.push_back('[');
    buffer += text;
    buffer.push_back(']');
    buffer.append(EventParser::padding(), '\0');
    m_parser->parse(buffer.data(), text.size(), buffer.size(), out);
}

// A chunk that did not parse. Its events before the failure are kept; for the rest, in turn: a
// wrong cut (rejoin with the following chunks), a known profiler bug (repair with a warning), the
// end of a truncated file (keep every complete event), or malformed JSON (an error naming where).
void ChunkRecovery::recover(const Chunk& chunk, ChunkResult& failed)
{
    failed.status = ChunkResult::Status::Ok;
    m_host.addParsed({}, chunk.streamOffset, failed, false);
    // goodEnd is the token after the last good event: a comma, unless that is where the JSON broke.
    size_t skip = failed.goodEnd;
    const char* text = chunk.text();
    while (skip < chunk.textSize && isJsonSpace(text[skip]))
        ++skip;
    if (failed.goodEnd > 0 && skip < chunk.textSize) {
        if (text[skip] != ',' && text[skip] != ']') {
            m_host.fail("malformed JSON " + m_host.positionText(chunk.streamOffset + skip) +
                        ": expected ',' between events");
            return;
        }
        if (text[skip] == ',') ++skip;
    }
    while (skip < chunk.textSize && isJsonSpace(text[skip]))
        ++skip;
    std::string rest(chunk.view().substr(skip));
    const uint64_t restOffset = chunk.streamOffset + skip;
    bool last = chunk.last;
    ChunkResult& r = m_result;

    while (true) {
        parseText(rest, r);
        if (r.status != ChunkResult::Status::Error) {
            m_host.addParsed(rest, restOffset, r, last);
            return;
        }
        if (last || rest.size() > kJoinLimit || scanEvents(rest).state != EventScan::Incomplete) break;
        // The text ends inside a value: the cut was a guess that fell inside a string or a nested
        // object, unless a known bug (a stray quote) is what broke the structure.
        SanitizeReport probe;
        if (scanEvents(sanitizeJson(rest, probe)).state != EventScan::Incomplete && probe.total() > 0) break;
        if (!m_host.takeNextText(rest, last)) last = true;
    }
    const size_t errorAt = r.errorOffset;
    const std::string message = r.error;
    const bool tooDeep = r.tooDeep;

    SanitizeReport report;
    std::string repaired = sanitizeJson(rest, report);
    std::string repairWarning;
    if (report.total() > 0) {
        repairWarning = "repaired invalid JSON written by a known profiler bug (" + report.describe() +
                        "), first " + m_host.positionText(restOffset + uint64_t(report.firstOffset));
        parseText(repaired, r);
        if (r.status != ChunkResult::Status::Error) {
            m_host.warn(repairWarning);
            m_host.addParsed(repaired, restOffset, r, last);
            return;
        }
    }
    if (last) {
        // The input ended inside an event (or inside the JSON after the events): keep every
        // complete event before that point.
        const std::string& text = report.total() > 0 ? repaired : rest;
        const EventScan scan = scanEvents(text);
        if (scan.state == EventScan::Incomplete || scan.state == EventScan::ArrayEnd) {
            const size_t end = scan.state == EventScan::ArrayEnd ? scan.stop + 1 : scan.completeEnd;
            const std::string prefix = text.substr(0, end);
            parseText(prefix, r);
            if (r.status != ChunkResult::Status::Error) {
                if (!repairWarning.empty()) m_host.warn(repairWarning);
                m_host.addParsed(prefix, restOffset, r, scan.state == EventScan::Incomplete);
                if (scan.state == EventScan::ArrayEnd) m_host.appendTail(std::string_view(text).substr(end));
                return;
            }
        }
    }
    m_host.fail(std::string(tooDeep ? "JSON nested too deeply " : "malformed JSON ") +
                m_host.positionText(restOffset + errorAt) + ": " + message);
}

} // namespace ks
