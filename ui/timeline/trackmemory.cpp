#include "ui/timeline/trackmemory.h"

#include <QSettings>
#include <QStringList>

namespace ks::ui {

namespace {

const char* const kHiddenKey = "timeline/hiddenTracks";
const char* const kPinnedKey = "timeline/pinnedTracks";

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QStringList load(const char* key)
{
    return QSettings().value(QLatin1String(key)).toStringList();
}

void store(const char* key, QStringList list)
{
    while (list.size() > TrackMemory::kMaxRemembered)
        list.removeFirst();
    QSettings().setValue(QLatin1String(key), list);
}

std::vector<TrackId> matching(const Trace& trace, const QStringList& keys)
{
    // In the list's order (pin order), each key once; several tracks may share one key (two
    // unnamed streams cannot, two threads of one name can), and all of them follow it.
    std::vector<TrackId> out;
    std::vector<QString> ofTrack(trace.trackCount());
    for (size_t i = 0; i < trace.trackCount(); ++i)
        ofTrack[i] = TrackMemory::keyOf(trace, TrackId(uint32_t(i)));
    for (const QString& k : keys)
        for (size_t i = 0; i < ofTrack.size(); ++i)
            if (ofTrack[i] == k && std::find(out.begin(), out.end(), TrackId(uint32_t(i))) == out.end())
                out.push_back(TrackId(uint32_t(i)));
    return out;
}

void setIn(const char* listKey, const QString& key, bool on)
{
    QStringList list = load(listKey);
    list.removeAll(key);
    if (on) list.append(key);
    store(listKey, list);
}

} // namespace

QString TrackMemory::keyOf(const Trace& trace, TrackId id)
{
    const Track& t = trace.track(id);
    const Process& p = trace.process(t.process);
    if (t.kind == TrackKind::GpuStream || t.kind == TrackKind::GpuAnnotation) {
        const QString device = p.deviceId >= 0 ? QString::number(p.deviceId) : qs(trace.keyText(p.pid));
        return QStringLiteral("gpu/%1/%2").arg(device, qs(trace.trackLabel(id)));
    }
    const QString process = p.name.valid() ? qs(trace.str(p.name)) : QString();
    QString thread;
    if (t.name.valid() && !trace.str(t.name).empty())
        thread = qs(trace.str(t.name));
    else if (trace.keyText(t.tid) == trace.keyText(p.pid))
        thread = QStringLiteral("main");
    else
        thread = QStringLiteral("tid ") + qs(trace.keyText(t.tid));
    return QStringLiteral("host/%1/%2").arg(process, thread);
}

std::vector<TrackId> TrackMemory::hidden(const Trace& trace)
{
    return matching(trace, load(kHiddenKey));
}

std::vector<TrackId> TrackMemory::pinned(const Trace& trace)
{
    return matching(trace, load(kPinnedKey));
}

void TrackMemory::setHidden(const Trace& trace, TrackId track, bool hidden)
{
    setIn(kHiddenKey, keyOf(trace, track), hidden);
}

void TrackMemory::setPinned(const Trace& trace, TrackId track, bool pinned)
{
    setIn(kPinnedKey, keyOf(trace, track), pinned);
}

void TrackMemory::showAll(const Trace& trace)
{
    QStringList list = load(kHiddenKey);
    for (size_t i = 0; i < trace.trackCount(); ++i)
        list.removeAll(keyOf(trace, TrackId(uint32_t(i))));
    store(kHiddenKey, list);
}

} // namespace ks::ui
