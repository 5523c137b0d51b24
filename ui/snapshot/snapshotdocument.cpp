#include "ui/snapshot/snapshotdocument.h"

#include "core/io/snapshot/snapshotreader.h"
#include "ui/util/format.h"

#include <QFile>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ks::ui {

int64_t SnapshotDocument::streamOf(size_t device, uint32_t allocation) const
{
    const SnapshotAllocation& a = timelines[device].allocations[allocation];
    const DeviceTrace& tr = snapshot->traces[device];
    if (a.begin != kBeforeTrace) return tr.stream[a.begin];
    if (a.end != kAfterTrace) return tr.stream[a.end];
    const SegmentTable& s = snapshot->segments;
    for (size_t k = 0; k < s.count(); ++k)
        if (s.device[k] == int64_t(device) && s.address[k] <= a.addr &&
            a.addr < s.address[k] + s.totalSize[k])
            return s.stream[k];
    return 0;
}

SnapshotOpenResult openSnapshotDocument(const QString& path, std::atomic<uint64_t>* bytesRead,
                                        const std::atomic<bool>* cancel, size_t maxBands)
{
    SnapshotOpenResult out;
    SnapshotLoadOptions options;
    options.bytesRead = bytesRead;
    options.cancel = cancel;
    SnapshotLoadResult r = loadMemorySnapshot(path.toStdString(), options);
    if (!r.ok()) {
        out.error = QString::fromStdString(r.error);
        return out;
    }
    auto doc = std::make_shared<SnapshotDocument>();
    doc->path = path;
    doc->fileBytes = r.fileBytes;
    doc->snapshot = std::move(r.snapshot);
    // A snapshot without a trace (history not recorded) still has its segments: one device each.
    size_t devices = doc->snapshot->traces.size();
    const SegmentTable& s = doc->snapshot->segments;
    for (size_t k = 0; k < s.count(); ++k)
        devices = std::max(devices, size_t(std::max<int64_t>(0, s.device[k] + 1)));
    doc->timelines.reserve(devices);
    for (size_t d = 0; d < devices; ++d) {
        if (cancel && cancel->load()) return out;
        doc->timelines.push_back(SnapshotTimeline::build(*doc->snapshot, d));
    }
    if (doc->snapshot->traces.size() < devices) doc->snapshot->traces.resize(devices);
    doc->bands.reserve(devices);
    for (size_t d = 0; d < devices; ++d)
        doc->bands.push_back(SnapshotBands::build(doc->timelines[d], maxBands));
    out.document = std::move(doc);
    return out;
}

QString streamText(int64_t stream)
{
    return stream >= 0 && stream < 65536 ? QString::number(stream)
                                         : u"0x"_s + QString::number(quint64(stream), 16);
}

bool isSnapshotFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    const QByteArray head = f.read(16);
    return looksLikePickle(std::string_view(head.constData(), size_t(head.size())));
}

QString allocationDetails(const SnapshotDocument& doc, size_t device, uint32_t allocation)
{
    const MemorySnapshot& snap = *doc.snapshot;
    const SnapshotTimeline& t = doc.timelines[device];
    const SnapshotAllocation& a = t.allocations[allocation];
    const DeviceTrace& tr = snap.traces[device];
    auto when = [&](uint32_t entry) {
        QString s = u"entry %1"_s.arg(entry);
        if (tr.timeUs[entry] != 0) s += u" (time_us %1)"_s.arg(tr.timeUs[entry]);
        return s;
    };
    QStringList lines;
    lines << u"Allocation %1: %2 (%3 bytes) at 0x%4, stream %5"_s.arg(allocation)
                 .arg(formatBytes(double(a.size)))
                 .arg(a.size)
                 .arg(QString::number(quint64(a.addr), 16))
                 .arg(streamText(doc.streamOf(device, allocation)));
    switch (a.origin) {
    case SnapshotAllocation::Origin::Traced:
        lines << u"allocated after "_s + when(a.begin);
        break;
    case SnapshotAllocation::Origin::FreedOnly:
        lines << u"allocated before the recorded history (truncated); stack of its free:"_s;
        break;
    case SnapshotAllocation::Origin::SegmentBlock:
        lines << u"alive in the snapshot's segments, its alloc not in the recorded history"_s;
        break;
    }
    lines << (a.end == kAfterTrace ? u"still alive at the snapshot"_s : u"freed after "_s + when(a.end));
    const auto [frames, count] = snap.stackFrames(a.stack);
    if (count == 0) {
        lines << u"<block was allocated before _record_history was enabled>"_s;
        return lines.join(u'\n');
    }
    // memory_viz's format_frames: the frames frameFilter keeps, repeats elided.
    QStringList shown;
    size_t hidden = 0;
    for (size_t k = 0; k < count; ++k) {
        if (!frameShown(snap, frames[k])) {
            ++hidden;
            continue;
        }
        shown << QString::fromStdString(frameText(snap, frames[k]));
    }
    lines << QString();
    for (qsizetype i = 0; i < shown.size();) {
        qsizetype j = i + 1;
        while (j < shown.size() && shown[j] == shown[i])
            ++j;
        lines << shown[i];
        if (j - i == 2) lines << shown[i];
        if (j - i > 2) lines << u"<repeats %1 times>"_s.arg(j - i - 1);
        i = j;
    }
    if (hidden > 0)
        lines << u"(%1 interpreter, unwinder and dispatcher frames hidden, as memory_viz does)"_s.arg(hidden);
    return lines.join(u'\n');
}

} // namespace ks::ui
