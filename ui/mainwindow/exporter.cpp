#include "ui/mainwindow/exporter.h"

#include "core/analysis/memory/memoryexport.h"
#include "core/analysis/overview/devicepeaks.h"
#include "core/analysis/overview/overviewexport.h"
#include "core/analysis/overview/overviewreport.h"
#include "core/analysis/overview/reportexport.h"
#include "core/analysis/summary/stackexport.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/io/tracewriter.h"
#include "core/util/atomicfile.h"
#include "ui/document/tracedocument.h"

namespace ks::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

bool writeText(const std::string& path, std::string_view text, const std::atomic<bool>& cancel,
               QString& error)
{
    AtomicFile f(path);
    if (!f.open() || !f.write(text)) {
        error = qs(f.error());
        return false;
    }
    // A cancel that came while the text was computed leaves the target as it was.
    if (cancel) {
        f.discard();
        error = QStringLiteral("cancelled");
        return false;
    }
    if (!f.commit()) {
        error = qs(f.error());
        return false;
    }
    return true;
}

QString memorySuffix(MemoryExportFormat f)
{
    switch (f) {
    case MemoryExportFormat::Html:
        return QStringLiteral(".html");
    case MemoryExportFormat::JsonGz:
        return QStringLiteral(".json.gz");
    case MemoryExportFormat::RawJsonGz:
        return QStringLiteral(".raw.json.gz");
    case MemoryExportFormat::Json:
        break;
    }
    return QStringLiteral(".json");
}

ExportOutcome fail(QString error)
{
    ExportOutcome o;
    o.error = std::move(error);
    return o;
}

} // namespace

const std::vector<ExportFormatInfo>& exportFormats()
{
    using F = ExportFormat;
    static const std::vector<ExportFormatInfo> list = {
        {F::ChromeTrace, QStringLiteral("Chrome &Trace…"),
         QStringLiteral("The trace as Kineto JSON (.json, or gzip for .gz), as kinetoscope export"),
         QStringLiteral("PyTorch traces (*.pt.trace.json.gz *.pt.trace.json *.json *.json.gz)"),
         QStringLiteral(".pt.trace.json.gz")},
        {F::StacksCpu, QStringLiteral("&Stacks (Self CPU Time)…"),
         QStringLiteral("FlameGraph stacks weighted by self CPU time, as torch's export_stacks() and "
                        "kinetoscope export-stacks"),
         QStringLiteral("Stacks (*.stacks *.txt);;All files (*)"), QStringLiteral(".cpu.stacks")},
        {F::StacksDevice, QStringLiteral("S&tacks (Self Device Time)…"),
         QStringLiteral("FlameGraph stacks weighted by self device (CUDA) time, as export_stacks(path, "
                        "\"self_cuda_time_total\")"),
         QStringLiteral("Stacks (*.stacks *.txt);;All files (*)"), QStringLiteral(".cuda.stacks")},
        {F::MemoryHtml, QStringLiteral("&Memory Timeline (HTML)…"),
         QStringLiteral("The memory page's device as torch's export_memory_timeline() HTML chart, as "
                        "kinetoscope export-memory TRACE OUT.html"),
         QStringLiteral("HTML (*.html)"), QStringLiteral(".memory.html"), false, true},
        {F::MemoryJson, QStringLiteral("Memory Timeline (&JSON)…"),
         QStringLiteral("[times_us, sizes] per category, as export_memory_timeline(OUT.json)"),
         QStringLiteral("JSON (*.json)"), QStringLiteral(".memory.json"), false, true},
        {F::MemoryJsonGz, QStringLiteral("Memory Timeline (JSON, &gzip)…"),
         QStringLiteral("[times_us, sizes] per category, gzip, as export_memory_timeline(OUT.json.gz)"),
         QStringLiteral("gzip JSON (*.json.gz)"), QStringLiteral(".memory.json.gz"), false, true},
        {F::MemoryRawJsonGz, QStringLiteral("Memory Timeline (&Raw Events)…"),
         QStringLiteral("Raw [time_ns, action, bytes, category] tuples, gzip, as "
                        "export_memory_timeline(OUT.raw.json.gz)"),
         QStringLiteral("gzip JSON (*.raw.json.gz)"), QStringLiteral(".memory.raw.json.gz"), false, true},
        {F::OperatorTable, QStringLiteral("&Operator Table (torch Text)…"),
         QStringLiteral("key_averages().table() as torch prints it, as kinetoscope summary (row limit "
                        "and time unit from Preferences)"),
         QStringLiteral("Text (*.txt)"), QStringLiteral(".key_averages.txt")},
        {F::OverviewText, QStringLiteral("Overview Report (Te&xt)…"),
         QStringLiteral("Findings, step breakdown, idle time and TraceLens's tables, as kinetoscope "
                        "analyze"),
         QStringLiteral("Text (*.txt)"), QStringLiteral(".analyze.txt")},
        {F::OverviewJson, QStringLiteral("Overview Report (JS&ON)…"),
         QStringLiteral("The whole overview as one JSON object, as kinetoscope analyze --json"),
         QStringLiteral("JSON (*.json)"), QStringLiteral(".analyze.json")},
        {F::OverviewCsv, QStringLiteral("Overview Tables (TraceLens &CSV)…"),
         QStringLiteral("TraceLens-compatible CSV files into a folder, as kinetoscope analyze --csv DIR"),
         QString(), QString(), true},
    };
    return list;
}

const ExportFormatInfo& exportFormatInfo(ExportFormat format)
{
    for (const ExportFormatInfo& i : exportFormats())
        if (i.format == format) return i;
    return exportFormats().front();
}

ExportOutcome runExport(const TraceDocument& doc, const ExportRequest& request,
                        const std::atomic<bool>& cancel, const std::function<void(double)>& progress)
{
    if (!doc.trace) return fail(QStringLiteral("no trace is loaded"));
    const Trace& trace = *doc.trace;
    const std::string path = request.path.toStdString();
    if (path.empty()) return fail(QStringLiteral("no file name given"));
    ExportOutcome out;
    QString error;
    switch (request.format) {
    case ExportFormat::ChromeTrace: {
        SaveOptions o;
        o.cancel = &cancel;
        if (progress)
            o.progress = [&progress](uint64_t done, uint64_t total) {
                progress(total ? double(done) / double(total) : 0.0);
            };
        const SaveResult r = saveTraceFile(trace, path, o);
        for (const std::string& w : r.warnings)
            out.warnings << qs(w);
        out.cancelled = r.cancelled;
        out.ok = r.ok;
        out.error = qs(r.error);
        return out;
    }
    case ExportFormat::StacksCpu:
    case ExportFormat::StacksDevice: {
        const char* metric =
            request.format == ExportFormat::StacksCpu ? "self_cpu_time_total" : "self_cuda_time_total";
        std::string text, why;
        if (!stacksText(trace, metric, text, &why)) return fail(qs(why));
        if (text.empty())
            return fail(QStringLiteral("no stacks to write: no op with %1 > 0 has a \"Call stack\" arg or "
                                       "enclosing python_function frames (record with with_stack=True)")
                            .arg(QLatin1StringView(metric)));
        if (cancel) break;
        out.ok = writeText(path, text, cancel, error);
        out.error = error;
        return out;
    }
    case ExportFormat::MemoryHtml:
    case ExportFormat::MemoryJson:
    case ExportFormat::MemoryJsonGz:
    case ExportFormat::MemoryRawJsonGz: {
        const MemoryTimeline* tl = doc.memoryTimeline.get();
        if (!tl || tl->empty())
            return fail(QStringLiteral("the trace has no memory events; record it with "
                                       "torch.profiler.profile(profile_memory=True)"));
        std::optional<MemoryDevice> device = request.memoryDevice.isEmpty()
                                                 ? tl->defaultDevice()
                                                 : MemoryDevice::parse(request.memoryDevice.toStdString());
        if (!device || !tl->find(*device))
            return fail(QStringLiteral("no memory events on device '%1'; devices in this trace: %2")
                            .arg(request.memoryDevice, qs(tl->deviceList())));
        // The format follows the name, as torch's does; the dialog's suffix makes the two agree.
        const MemoryExportFormat want =
            request.format == ExportFormat::MemoryHtml     ? MemoryExportFormat::Html
            : request.format == ExportFormat::MemoryJson   ? MemoryExportFormat::Json
            : request.format == ExportFormat::MemoryJsonGz ? MemoryExportFormat::JsonGz
                                                           : MemoryExportFormat::RawJsonGz;
        if (memoryExportFormatFor(path) != want)
            return fail(QStringLiteral("%1: for this format the name must end in %2")
                            .arg(request.path, memorySuffix(want)));
        std::string why;
        out.ok = exportMemoryTimeline(*tl, *device, path, why);
        out.error = qs(why);
        return out;
    }
    case ExportFormat::OperatorTable: {
        const SummaryReport report = buildSummaryReport(trace, {});
        if (cancel) break;
        TableOptions o = report.table;
        o.sortBy = o.useDevice ? SortKey::SelfDeviceTimeTotal : SortKey::CpuTimeTotal;
        o.rowLimit = request.rowLimit;
        o.timeUnit = request.timeUnit.toStdString();
        std::string why;
        const std::string text = report.format(o, &why);
        if (!why.empty()) return fail(qs(why));
        if (text.empty()) return fail(QStringLiteral("no events torch would list (the table is empty)"));
        out.ok = writeText(path, text, cancel, error);
        out.error = error;
        return out;
    }
    case ExportFormat::OverviewText:
    case ExportFormat::OverviewJson:
    case ExportFormat::OverviewCsv: {
        OverviewReportOptions o;
        if (!request.devicePeak.isEmpty()) {
            DevicePeak p;
            std::string why;
            if (!applyDevicePeakOverride(request.devicePeak.toStdString(), p, why))
                return fail(QStringLiteral("device peak '%1': %2").arg(request.devicePeak, qs(why)));
            o.peak = p;
        }
        LinkIndex ownLinks;
        if (request.growing) ownLinks.build(trace, &cancel);
        const OverviewReport report =
            buildOverview(trace, request.growing ? ownLinks : doc.links, o, &cancel);
        if (cancel || report.cancelled) break;
        if (!report.gpu.timeline.valid)
            out.warnings << QStringLiteral("no linked GPU work (the GPU timeline is empty)");
        if (request.format == ExportFormat::OverviewCsv) {
            std::string why;
            out.ok = writeOverviewCsv(report.gpu, path, &why);
            out.error = qs(why);
            return out;
        }
        const std::string text =
            request.format == ExportFormat::OverviewJson
                ? overviewReportJson(report)
                : overviewReportText(report, request.rowLimit < 0 ? SIZE_MAX : size_t(request.rowLimit));
        out.ok = writeText(path, text, cancel, error);
        out.error = error;
        return out;
    }
    }
    out.cancelled = true;
    out.error = QStringLiteral("cancelled");
    return out;
}

} // namespace ks::ui
