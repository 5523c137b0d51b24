#pragma once

#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <vector>

namespace ks::ui {

class TraceDocument;

// Everything the command line exports, for File > Export. Each runs on a worker thread.
enum class ExportFormat {
    ChromeTrace,     // kinetoscope export
    StacksCpu,       // kinetoscope export-stacks --metric self_cpu_time_total
    StacksDevice,    // ... --metric self_cuda_time_total
    MemoryHtml,      // kinetoscope export-memory TRACE OUT.html
    MemoryJson,      // ... OUT.json
    MemoryJsonGz,    // ... OUT.json.gz
    MemoryRawJsonGz, // ... OUT.raw.json.gz
    OperatorTable,   // kinetoscope summary (torch's key_averages().table())
    OverviewText,    // kinetoscope analyze
    OverviewJson,    // kinetoscope analyze --json
    OverviewCsv,     // kinetoscope analyze --csv DIR
};

struct ExportFormatInfo {
    ExportFormat format;
    QString label;   // menu text
    QString toolTip; // what it writes, and the command that writes the same
    QString filter;  // file dialog filter
    QString suffix;  // appended to the suggested name
    bool directory = false;
    bool memory = false; // needs allocator events
};

// In menu order.
const std::vector<ExportFormatInfo>& exportFormats();
const ExportFormatInfo& exportFormatInfo(ExportFormat format);

struct ExportRequest {
    ExportFormat format = ExportFormat::ChromeTrace;
    QString path;         // a file, or a directory for OverviewCsv
    QString memoryDevice; // "cuda:0"; empty: the trace's default device
    int rowLimit = 100;   // torch tables and text reports; -1 for all
    QString timeUnit;     // "", "s", "ms", "us"
    QString devicePeak;   // --device-peak text; empty: the trace's device
    // A live session's trace: its link index is replaced on the GUI thread, so the job builds its own.
    bool growing = false;
};

struct ExportOutcome {
    bool ok = false;
    bool cancelled = false;
    QString error; // one line
    QStringList warnings;
};

// Writes the export (atomically: a failed or cancelled one leaves the target as it was). progress
// gets a fraction in [0, 1] where the writer reports one; cancel is polled.
ExportOutcome runExport(const TraceDocument& doc, const ExportRequest& request,
                        const std::atomic<bool>& cancel, const std::function<void(double)>& progress = {});

} // namespace ks::ui
