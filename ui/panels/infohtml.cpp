#include "ui/panels/infohtml.h"

#include "ui/document/tracedocument.h"
#include "ui/util/format.h"
#include "ui/util/processmemory.h"
#include "ui/util/theme.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <set>

namespace ks::ui {

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString row(const QString& k, const QString& vHtml)
{
    return QStringLiteral("<tr><td class='k'>%1</td><td>%2</td></tr>").arg(esc(k), vHtml);
}

QJsonValue parseJson(const std::string& text)
{
    // Wrap so scalars parse too.
    const QJsonDocument d = QJsonDocument::fromJson(QByteArray("[") + QByteArray::fromStdString(text) + "]");
    return d.isArray() && !d.array().isEmpty() ? d.array().at(0) : QJsonValue();
}

QString jsonText(const QJsonValue& v)
{
    if (v.isString()) return v.toString();
    if (v.isDouble()) {
        const double d = v.toDouble();
        return d == double(qint64(d)) ? QString::number(qint64(d)) : QString::number(d);
    }
    if (v.isBool()) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isArray()) return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isObject()) return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    return QStringLiteral("null");
}

// CUDA encodes versions as 1000*major + 10*minor (12040 = 12.4).
QString cudaVersion(const QJsonValue& v)
{
    const qint64 n = qint64(v.toDouble());
    if (n >= 1000)
        return QStringLiteral("%1.%2  <span class='d'>(%3)</span>").arg(n / 1000).arg((n % 1000) / 10).arg(n);
    return esc(jsonText(v));
}

QString objectTable(const QJsonObject& o)
{
    QString html = QStringLiteral("<table>");
    for (auto it = o.begin(); it != o.end(); ++it) {
        QString text = jsonText(it.value());
        if (text.size() > 300) text = text.left(300) + QStringLiteral("…");
        html += row(it.key(), QStringLiteral("<span class='mono'>") + esc(text) + QStringLiteral("</span>"));
    }
    return html + QStringLiteral("</table>");
}

// First value of a key anywhere inside nested objects (harnesses bury torch_version deep).
QJsonValue findKey(const QJsonValue& v, const QString& key, int depth = 0)
{
    if (depth > 8 || !v.isObject()) return QJsonValue(QJsonValue::Undefined);
    const QJsonObject o = v.toObject();
    if (o.contains(key)) return o.value(key);
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QJsonValue found = findKey(it.value(), key, depth + 1);
        if (!found.isUndefined()) return found;
    }
    return QJsonValue(QJsonValue::Undefined);
}

// Nested objects as "a › b › c" rows, so user metadata is readable without a JSON viewer.
void flatten(const QString& prefix, const QJsonValue& v, QString& rows, int& budget)
{
    if (budget <= 0) return;
    if (v.isObject() && !v.toObject().isEmpty()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end() && budget > 0; ++it)
            flatten(prefix + QStringLiteral(" › ") + it.key(), it.value(), rows, budget);
        return;
    }
    QString text = jsonText(v);
    if (text.size() > 300) text = text.left(300) + QStringLiteral("…");
    rows += row(prefix, QStringLiteral("<span class='mono'>") + esc(text) + QStringLiteral("</span>"));
    --budget;
}

} // namespace

QString traceInfoHtml(const TraceDocument& doc)
{
    const Trace& t = *doc.trace;
    const TraceMetadata& md = t.metadata();
    const Palette& pal = Theme::palette();
    QString html =
        QStringLiteral("<style>"
                       "body{font-size:12px;} h3{font-size:12px;color:%1;margin:12px 0 4px 0;}"
                       "td{padding:1px 10px 1px 0;vertical-align:top;} td.k{color:%2;white-space:nowrap;}"
                       "th{text-align:left;color:%1;padding:1px 10px 1px 0;font-weight:normal;}"
                       ".mono{font-family:'DejaVu Sans Mono',monospace;font-size:11px;} .d{color:%3;}"
                       ".warn{color:%4;} td.n{text-align:right;}"
                       "</style>")
            .arg(pal.heading.name(), pal.mutedText.name(), pal.hintText.name(), pal.warning.name());
    std::set<std::string> shown = {"traceEvents"};

    // File and load.
    const QFileInfo fi(doc.path);
    html += QStringLiteral("<h3>File</h3><table>");
    html += row(QStringLiteral("Name"), esc(fi.fileName()));
    html += row(QStringLiteral("Folder"),
                QStringLiteral("<span class='d'>") + esc(fi.absolutePath()) + QStringLiteral("</span>"));
    html +=
        row(QStringLiteral("Size"),
            formatBytes(double(doc.loadStats.inputBytes)) +
                (doc.loadStats.compressed
                     ? QStringLiteral(" gzip, %1 of JSON").arg(formatBytes(double(doc.loadStats.jsonBytes)))
                     : QString()));
    html += row(QStringLiteral("Events"), formatCount(doc.loadStats.events));
    html += row(QStringLiteral("Load time"), QStringLiteral("%1 s read, %2 s analyses")
                                                 .arg(doc.loadSeconds, 0, 'f', 3)
                                                 .arg(doc.analysisSeconds, 0, 'f', 3));
    html += row(QStringLiteral("Memory"),
                QStringLiteral("%1 model and indexes · %2 process resident")
                    .arg(formatBytes(double(doc.bytesUsed())), formatBytes(double(residentMemoryBytes()))));
    html += row(QStringLiteral("Duration"), formatDuration(t.endTime() - t.startTime()));
    if (md.topLevelArray)
        html += row(QStringLiteral("Layout"), QStringLiteral("bare event array (2020 Kineto)"));
    html += QStringLiteral("</table>");

    // Versions.
    QString versions;
    if (md.schemaVersion)
        versions += row(QStringLiteral("Schema version"), QString::number(*md.schemaVersion));
    shown.insert("schemaVersion");
    if (const std::string* m = md.find("metadata")) {
        const QJsonValue o = parseJson(*m);
        for (const char* k :
             {"torch_version", "pytorch_version", "cuda_compiled_version", "hip_compiled_version"}) {
            const QJsonValue v = findKey(o, QLatin1String(k));
            if (!v.isUndefined() && !(v.isString() && v.toString() == QLatin1String("N/A")))
                versions += row(QString::fromLatin1(k), esc(jsonText(v)));
        }
    }
    for (const char* k : {"torch_version", "pytorch_version"})
        if (const std::string* v = md.find(k)) {
            versions += row(QString::fromLatin1(k), esc(jsonText(parseJson(*v))));
            shown.insert(k);
        }
    for (const char* k : {"cuda_runtime_version", "cuda_driver_version"})
        if (const std::string* v = md.find(k)) {
            versions += row(QString::fromLatin1(k), cudaVersion(parseJson(*v)));
            shown.insert(k);
        }
    for (const char* k : {"cupti_version", "hip_runtime_version", "hip_driver_version", "roctracer_version",
                          "rocprofiler-sdk_version"})
        if (const std::string* v = md.find(k)) {
            versions += row(QString::fromLatin1(k), esc(jsonText(parseJson(*v))));
            shown.insert(k);
        }
    if (!versions.isEmpty())
        html += QStringLiteral("<h3>Versions</h3><table>") + versions + QStringLiteral("</table>");

    // Devices.
    const std::string* props = md.find("deviceProperties");
    if (!props) props = md.find("computeProperties");
    shown.insert("deviceProperties");
    shown.insert("computeProperties");
    if (props) {
        const QJsonArray devices = parseJson(*props).toArray();
        if (!devices.isEmpty()) {
            html += QStringLiteral("<h3>Devices</h3>");
            for (const QJsonValue& dv : devices) {
                const QJsonObject d = dv.toObject();
                QString title = QStringLiteral("GPU %1").arg(jsonText(d.value(QLatin1String("id"))));
                if (!d.value(QLatin1String("name")).toString().isEmpty())
                    title += QStringLiteral(" · ") + d.value(QLatin1String("name")).toString();
                html += QStringLiteral("<p style='margin:4px 0 2px 0'><b>%1</b></p><table>").arg(esc(title));
                if (d.contains(QLatin1String("totalGlobalMem")))
                    html += row(QStringLiteral("Memory"),
                                formatBytes(d.value(QLatin1String("totalGlobalMem")).toDouble()));
                if (d.contains(QLatin1String("computeMajor")))
                    html +=
                        row(QStringLiteral("Compute capability"),
                            QStringLiteral("%1.%2").arg(jsonText(d.value(QLatin1String("computeMajor"))),
                                                        jsonText(d.value(QLatin1String("computeMinor")))));
                for (auto it = d.begin(); it != d.end(); ++it) {
                    const QString k = it.key();
                    if (k == QLatin1String("id") || k == QLatin1String("name") ||
                        k == QLatin1String("totalGlobalMem") || k == QLatin1String("computeMajor") ||
                        k == QLatin1String("computeMinor"))
                        continue;
                    html += row(k, esc(jsonText(it.value())));
                }
                html += QStringLiteral("</table>");
            }
        }
    }

    if (const std::string* dist = md.find("distributedInfo")) {
        shown.insert("distributedInfo");
        const QJsonValue v = parseJson(*dist);
        html += QStringLiteral("<h3>Distributed</h3>") +
                (v.isObject() ? objectTable(v.toObject())
                              : QStringLiteral("<p class='mono'>%1</p>").arg(esc(jsonText(v))));
    }

    // Everything else the file carried at the top level.
    QString other;
    int budget = 400;
    for (const auto& [k, v] : md.entries) {
        if (shown.count(k)) continue;
        const QJsonValue jv = parseJson(v);
        if (jv.isUndefined()) {
            other += row(QString::fromStdString(k), QStringLiteral("<span class='mono'>") +
                                                        esc(QString::fromStdString(v).left(300)) +
                                                        QStringLiteral("</span>"));
            continue;
        }
        flatten(QString::fromStdString(k), jv, other, budget);
    }
    if (budget <= 0)
        other += row(QStringLiteral("…"), QStringLiteral("<span class='d'>more metadata not shown</span>"));
    if (!other.isEmpty())
        html += QStringLiteral("<h3>Other metadata</h3><table>") + other + QStringLiteral("</table>");

    // Counts.
    const TraceStats& s = doc.stats;
    html += QStringLiteral("<h3>Contents</h3><table>");
    html += row(QStringLiteral("Slices"), formatCount(s.slices));
    html += row(QStringLiteral("CPU threads · GPU streams"),
                QStringLiteral("%1 · %2").arg(s.threads).arg(s.streams));
    html += row(QStringLiteral("Deepest nesting"), QString::number(s.maxDepth));
    html += row(QStringLiteral("Flows"), formatCount(s.flows));
    html += row(QStringLiteral("Memory events"), formatCount(s.memoryEvents));
    html += row(QStringLiteral("Instant events"), formatCount(s.instants));
    html += row(QStringLiteral("Counter samples"), formatCount(s.counterSamples));
    html += row(QStringLiteral("Profiler steps"), formatCount(t.steps().size()));
    html += QStringLiteral("</table>");
    html += QStringLiteral(
        "<h3>Events by category</h3><table><tr><th>Category</th><th>Count</th><th>Total time</th></tr>");
    for (const CategoryCount& c : s.categories)
        html +=
            QStringLiteral("<tr><td>%1</td><td class='n'>%2</td><td class='n'>%3</td></tr>")
                .arg(esc(c.category.empty() ? QStringLiteral("(none)") : QString::fromStdString(c.category)),
                     formatCount(c.slices), formatDuration(c.total));
    html += QStringLiteral("</table>");

    if (!doc.warnings.empty()) {
        html += QStringLiteral("<h3>Reader warnings</h3>");
        for (const std::string& w : doc.warnings)
            html += QStringLiteral("<p class='warn' style='margin:2px 0'>%1</p>")
                        .arg(esc(QString::fromStdString(w)));
    }
    return html;
}

} // namespace ks::ui
