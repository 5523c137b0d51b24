#include "core/io/snapshot/snapshotreader.h"

#include "core/io/bytesource.h"
#include "core/io/pickle/picklereader.h"
#include "core/io/snapshot/snapshotbuilder.h"
#include "core/util/textescape.h"

#include <exception>

namespace ks {

namespace {

SnapshotLoadResult load(ByteSource& source, const SnapshotLoadOptions& options)
{
    SnapshotLoadResult r;
    r.fileBytes = source.inputSize();
    try {
        SnapshotBuilder builder;
        pickle::Reader reader(builder);
        reader.setProgress(options.bytesRead);
        reader.setCancel(options.cancel);
        std::string error;
        if (!reader.read(source, error)) {
            r.error = escapeText(error);
            return r;
        }
        r.snapshot = builder.take();
    } catch (const std::exception& e) {
        r.error = escapeText(e.what());
    }
    return r;
}

} // namespace

bool looksLikePickle(std::string_view head)
{
    return head.size() >= 2 && uint8_t(head[0]) == 0x80 && uint8_t(head[1]) >= 2 && uint8_t(head[1]) <= 5;
}

SnapshotLoadResult loadMemorySnapshot(const std::string& path, const SnapshotLoadOptions& options)
{
    std::string error;
    std::unique_ptr<ByteSource> source = openByteSource(path, error);
    if (!source) {
        SnapshotLoadResult r;
        r.error = escapeText(error);
        return r;
    }
    return load(*source, options);
}

SnapshotLoadResult loadMemorySnapshotData(std::string_view bytes, const SnapshotLoadOptions& options)
{
    std::unique_ptr<ByteSource> source = memoryByteSource(bytes);
    return load(*source, options);
}

} // namespace ks
