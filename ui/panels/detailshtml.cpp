#include "ui/panels/detailshtml.h"

#include "core/analysis/timeline/rangestats.h"
#include "core/util/demangle.h"
#include "ui/document/tracedocument.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QFont>
#include <QFontMetrics>
#include <QStringList>
#include <algorithm>
#include <utility>

namespace ks::ui {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString kindLabel(EventKind k)
{
    switch (k) {
    case EventKind::CpuOp:
        return QStringLiteral("CPU op");
    case EventKind::UserAnnotation:
        return QStringLiteral("user annotation");
    case EventKind::GpuUserAnnotation:
        return QStringLiteral("GPU annotation");
    case EventKind::PythonFunction:
        return QStringLiteral("Python function");
    case EventKind::Runtime:
        return QStringLiteral("runtime call");
    case EventKind::Driver:
        return QStringLiteral("driver call");
    case EventKind::Kernel:
        return QStringLiteral("GPU kernel");
    case EventKind::Memcpy:
        return QStringLiteral("memory copy");
    case EventKind::Memset:
        return QStringLiteral("memory set");
    case EventKind::Sync:
        return QStringLiteral("synchronization");
    default:
        return QString::fromLatin1(eventKindName(k));
    }
}

QString row(const QString& key, const QString& valueHtml)
{
    return QStringLiteral("<tr><td class='k'>%1</td><td>%2</td></tr>").arg(esc(key), valueHtml);
}

// Long JSON values (shapes of many inputs) wrap after commas instead of widening the panel.
QString argValueHtml(std::string_view key, const ArgValue& v)
{
    QString text = QString::fromStdString(v.toDisplay());
    if (key == "Call stack" || key == "call stack") {
        QStringList frames = text.split(QLatin1Char(';'), Qt::SkipEmptyParts);
        for (QString& f : frames)
            f = esc(f.trimmed());
        return QStringLiteral("<span class='mono'>") + frames.join(QStringLiteral("<br>")) +
               QStringLiteral("</span>");
    }
    QString html = esc(text);
    if (v.type == ArgType::Json)
        html.replace(QStringLiteral("],"), QStringLiteral("],&#8203;"))
            .replace(QStringLiteral(", "), QStringLiteral(",&#8203; "));
    if (v.type == ArgType::Json || v.isNumber())
        return QStringLiteral("<span class='mono'>") + html + QStringLiteral("</span>");
    return html;
}

// The title of a long name: template arguments and parameter lists collapsed ("<…>", "(…)") and
// anonymous namespaces dropped, which leaves the function's own name.
QString shortName(QString name)
{
    name.remove(QStringLiteral("(anonymous namespace)::"));
    QString out;
    out.reserve(name.size());
    int depth = 0;
    for (QChar c : std::as_const(name)) {
        if (c == QLatin1Char('<') || c == QLatin1Char('(')) {
            if (depth++ == 0) out += c == QLatin1Char('<') ? QStringLiteral("<…>") : QStringLiteral("(…)");
        } else if (c == QLatin1Char('>') || c == QLatin1Char(')')) {
            depth = std::max(0, depth - 1);
        } else if (depth == 0) {
            out += c;
        }
    }
    out.replace(QStringLiteral("(…)"), QStringLiteral("()"));
    return out.trimmed();
}

} // namespace

QString sliceLink(SliceRef r)
{
    return QStringLiteral("slice:%1:%2").arg(r.track.value).arg(r.index);
}

SliceRef parseSliceLink(const QString& href)
{
    const QStringList parts = href.split(QLatin1Char(':'));
    if (parts.size() != 3 || parts[0] != QLatin1String("slice")) return {};
    bool ok1 = false, ok2 = false;
    const uint32_t t = parts[1].toUInt(&ok1);
    const uint32_t r = parts[2].toUInt(&ok2);
    return ok1 && ok2 ? SliceRef{TrackId(t), r} : SliceRef{};
}

QString displaySliceName(const TraceDocument& doc, SliceRef r)
{
    const Trace& t = *doc.trace;
    return displayName(t.str(t.slices(r.track).name(r.index)));
}

QString sliceDetailsHtml(const TraceDocument& doc, SliceRef r, int nameWidth)
{
    const Trace& t = *doc.trace;
    if (!r.valid() || r.track.value >= t.trackCount() || r.index >= t.slices(r.track).size()) return {};
    const SliceTrack& st = t.slices(r.track);
    const TimeNs start = st.start(r.index), end = st.end(r.index), dur = end - start;
    const EventKind kind = t.sliceKind(r);
    auto linkTo = [&](SliceRef x) {
        const SliceTrack& xs = t.slices(x.track);
        QString n = displaySliceName(doc, x);
        if (n.size() > 90) n = n.left(44) + QStringLiteral("…") + n.right(44);
        return QStringLiteral("<a href='%1'>%2</a> <span class='d'>%3 · %4</span>")
            .arg(sliceLink(x), esc(n), formatDuration(xs.end(x.index) - xs.start(x.index)),
                 esc(qstr(t.trackLabel(x.track))));
    };

    const Palette& pal = Theme::palette();
    QString html =
        QStringLiteral("<style>"
                       "body{font-size:12px;} p.name{font-size:13px;margin:2px 0 6px 0;}"
                       "h3{font-size:12px;color:%1;margin:12px 0 4px 0;}"
                       "td{padding:1px 8px 1px 0;vertical-align:top;} td.k{color:%2;white-space:nowrap;}"
                       ".mono{font-family:'DejaVu Sans Mono',monospace;font-size:11px;}"
                       ".d{color:%3;} a{color:%4;text-decoration:none;}"
                       "</style>")
            .arg(pal.heading.name(), pal.mutedText.name(), pal.hintText.name(), pal.link.name());
    // One line for the name however long (a templated kernel runs to thousands of characters):
    // the fields below are what the panel is for. The whole name comes last, and on hover.
    const QString rawName = qstr(t.str(st.name(r.index)));
    const QString name = displaySliceName(doc, r);
    QString shown = name;
    if (nameWidth > 0) {
        QFont f;
        f.setPixelSize(13);
        const QFontMetrics fm(f);
        // Too long: without template arguments, then without namespaces, then cut at the end.
        if (fm.horizontalAdvance(shown) > nameWidth) shown = shortName(name);
        if (fm.horizontalAdvance(shown) > nameWidth) {
            const qsizetype last = shown.lastIndexOf(QStringLiteral("::"));
            if (last >= 0) shown = shown.mid(last + 2);
            shown = fm.elidedText(shown, Qt::ElideRight, nameWidth);
        }
    }
    html += QStringLiteral("<p class='name'><a href='ks-name' style='color:%1'>%2</a>")
                .arg(pal.text.name(), esc(shown));
    if (shown != name) html += QStringLiteral(" &nbsp;<a href='ks-copy:name'>Copy</a>");
    html += QStringLiteral("</p>");
    html += QStringLiteral("<table>");
    html +=
        row(QStringLiteral("Kind"), esc(kindLabel(kind)) + QStringLiteral(" <span class='d'>(") +
                                        esc(qstr(t.str(st.category(r.index)))) + QStringLiteral(")</span>"));
    const Track& track = t.track(r.track);
    html += row(QStringLiteral("Track"), esc(qstr(t.processLabel(track.process)) + QStringLiteral(" › ") +
                                             qstr(t.trackLabel(r.track))));
    html += row(QStringLiteral("Start"), formatTimestamp(start - t.startTime(), 1.0));
    html +=
        row(QStringLiteral("Duration"),
            st.isOpen(r.index) ? formatDuration(dur) + QStringLiteral(" (still open)") : formatDuration(dur));
    const TimeNs self = selfTime(st, r.index);
    html += row(QStringLiteral("Self time"),
                formatDuration(self) + (dur > 0 ? QStringLiteral(" <span class='d'>(%1)</span>")
                                                      .arg(formatPercent(double(self) / double(dur)))
                                                : QString()));
    html += row(QStringLiteral("Depth"), QString::number(st.depth(r.index)));
    const int64_t ext = doc.links.externalId(r), corr = doc.links.correlation(r);
    if (ext >= 0) html += row(QStringLiteral("External id"), QString::number(ext));
    if (corr >= 0) html += row(QStringLiteral("Correlation"), QString::number(corr));
    html += QStringLiteral("</table>");

    // Linked events.
    const SliceLinks links = doc.links.linksOf(r);
    QString linked;
    if (links.launchingOp.valid()) linked += row(QStringLiteral("Launched by"), linkTo(links.launchingOp));
    if (links.runtime.valid()) linked += row(QStringLiteral("Launch call"), linkTo(links.runtime));
    auto list = [&](const QString& title, const std::vector<SliceRef>& v, size_t omitted) {
        if (v.empty()) return;
        QStringList items;
        for (SliceRef x : v)
            items << linkTo(x);
        if (omitted)
            items << QStringLiteral("<span class='d'>… and %1 more</span>").arg(formatCount(omitted));
        linked += row(QStringLiteral("%1 (%2)").arg(title).arg(v.size() + omitted),
                      items.join(QStringLiteral("<br>")));
    };
    list(QStringLiteral("Launches"), links.launches, links.launchesOmitted);
    list(QStringLiteral("GPU work"), links.gpuWork, links.gpuWorkOmitted);
    for (uint32_t fi : links.flows) {
        const Flow& f = t.flows()[fi];
        const bool outgoing = f.hasFrom && f.from() == r;
        const SliceRef other = outgoing ? f.to() : f.from();
        const QString cat = esc(qstr(t.str(f.category)));
        if ((outgoing ? f.hasTo : f.hasFrom) && other.valid())
            linked += row(outgoing ? QStringLiteral("Flow → (%1)").arg(cat)
                                   : QStringLiteral("Flow ← (%1)").arg(cat),
                          linkTo(other));
    }
    if (!linked.isEmpty())
        html += QStringLiteral("<h3>Linked events</h3><table>") + linked + QStringLiteral("</table>");

    // Parents, outermost first.
    std::vector<SliceRef> parents;
    for (int64_t p = st.parent(r.index); p >= 0 && parents.size() < 64; p = st.parent(size_t(p)))
        parents.push_back(SliceRef{r.track, uint32_t(p)});
    if (!parents.empty()) {
        html += QStringLiteral("<h3>Parents</h3><table>");
        for (auto it = parents.rbegin(); it != parents.rend(); ++it)
            html += QStringLiteral("<tr><td>%1</td></tr>").arg(linkTo(*it));
        html += QStringLiteral("</table>");
    }

    QString args;
    t.args().forEach(st.args(r.index), [&](const Arg& a) {
        args += row(qstr(a.key), argValueHtml(a.key, a.value));
        return true;
    });
    if (!args.isEmpty())
        html += QStringLiteral("<h3>Arguments</h3><table>") + args + QStringLiteral("</table>");
    if (shown != name || name != rawName) {
        // Breakable after separators so that the name wraps in the panel instead of widening it.
        auto breakable = [](const QString& s) {
            QString e = esc(s);
            for (const char* sep : {"::", ",", "&lt;", "_"})
                e.replace(QLatin1String(sep), QLatin1String(sep) + QStringLiteral("&#8203;"));
            return e;
        };
        html += QStringLiteral("<h3>Full name</h3><p class='mono'>%1</p>").arg(breakable(name));
        if (name != rawName)
            html += QStringLiteral("<h3>Mangled name</h3><p class='mono'>%1</p>").arg(breakable(rawName));
    }
    return html;
}

} // namespace ks::ui
