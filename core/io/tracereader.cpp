#include "core/io/tracereader.h"

#include "core/io/bytesource.h"
#include "core/io/etreader.h"
#include "core/io/loader.h"
#include "core/io/nvprofreader.h"

#include <fstream>

namespace ks {

namespace {

// An execution trace is JSON too, told apart by its first keys; it is read whole (the op graph needs
// every node before anything can be shown). Returns false when the source holds something else.
bool readExecutionTraceSource(ByteSource& source, const LoadOptions& options, LoadResult& out)
{
    std::string text;
    try {
        char buf[64 << 10];
        size_t got = source.read(buf, sizeof buf);
        text.assign(buf, got);
        if (!looksLikeExecutionTrace(text)) return false;
        while ((got = source.read(buf, sizeof buf)) > 0)
            text.append(buf, got);
    } catch (const std::exception& e) {
        if (text.empty() || !looksLikeExecutionTrace(text)) return false;
        out.error = e.what();
        return true;
    }
    out = loadExecutionTraceAsTrace(text, options);
    return true;
}

} // namespace

LoadResult loadTraceFile(const std::string& path, const LoadOptions& options)
{
    // Formats are told apart by their first bytes, never by the file name: nvprof's databases come
    // as .nvvp, .prof, .sqlite or with no extension at all.
    {
        char head[16] = {};
        std::ifstream in(path, std::ios::binary);
        if (in && in.read(head, sizeof head) && isSqliteHeader(std::string_view(head, sizeof head)))
            return loadNvprofFile(path, options);
    }
    std::string error;
    auto source = openByteSource(path, error);
    if (!source) {
        LoadResult r;
        r.error = error;
        return r;
    }
    LoadResult et;
    if (readExecutionTraceSource(*source, options, et)) return et;
    source = openByteSource(path, error);
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
    if (isSqliteHeader(data)) return loadNvprofData(data, options);
    LoadResult et;
    if (readExecutionTraceSource(*memoryByteSource(data), options, et)) return et;
    Loader loader(memoryByteSource(data), options, "<memory>", data);
    return loader.run();
}

} // namespace ks
