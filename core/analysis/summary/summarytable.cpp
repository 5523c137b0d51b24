#include "core/analysis/summary/summarytable.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

constexpr size_t kColumnWidth = 12;
constexpr size_t kSpacing = 2;

class Layout {
public:
    void add(std::string title, size_t width, bool left = false)
    {
        m_titles.push_back(std::move(title));
        m_widths.push_back(width);
        m_left.push_back(left);
    }
    size_t lineLength() const
    {
        size_t n = 0;
        for (size_t w : m_widths)
            n += w + kSpacing;
        return n - kSpacing;
    }
    void separator(std::string& out) const
    {
        for (size_t w : m_widths) {
            out.append(w, '-');
            out.append(kSpacing, ' ');
        }
        out += '\n';
    }
    void row(std::string& out, const std::vector<std::string>& cells) const
    {
        for (size_t i = 0; i < m_widths.size(); ++i) {
            if (m_left[i])
                pyformat::appendLeft(out, cells[i], m_widths[i]);
            else
                pyformat::appendRight(out, cells[i], m_widths[i]);
            out.append(kSpacing, ' ');
        }
        out += '\n';
    }
    const std::vector<std::string>& titles() const { return m_titles; }

private:
    std::vector<std::string> m_titles;
    std::vector<size_t> m_widths;
    std::vector<bool> m_left;
};

// torch's trim_path: a frame longer than the column keeps its tail, its first 3 characters "...".
std::string trimFrame(std::string_view frame, size_t width)
{
    const size_t n = pyformat::length(frame);
    if (n <= width) return std::string(frame);
    std::string_view tail = frame.substr(pyformat::prefix(frame, n - width).size());
    if (pyformat::length(tail) <= 3) return std::string(tail);
    return "..." + std::string(tail.substr(pyformat::prefix(tail, 3).size()));
}

// torch 1.13 prints at most this many frames of a row's stack (MAX_STACK_ENTRY); torch 2.x prints
// all of them, i.e. up to group_by_stack_n.
constexpr size_t kMaxStackEntries113 = 5;

} // namespace

std::string SummaryTable::format(std::vector<KeyAverage> rows, const TableOptions& o, std::string* error)
{
    if (rows.empty()) return {};
    bool hasDeviceTime = false, hasDeviceMem = false, hasShapes = false;
    for (const KeyAverage& r : rows) {
        hasDeviceTime = hasDeviceTime || r.selfDeviceTimeTotal > 0;
        hasDeviceMem = hasDeviceMem || r.selfDeviceMemoryUsage > 0;
        hasShapes = hasShapes || (!r.inputShapes.empty() && r.inputShapes != "[]");
    }
    const bool torch2 = o.torch == TorchFlavor::Torch2;
    if (hasDeviceTime && !o.useDevice && torch2) {
        if (error) *error = "use_device is None, but there is device performance data.";
        return {};
    }
    sortKeyAverages(rows, o.sortBy);

    size_t nameWidth = 0, shapesWidth = 0, sourceWidth = 0;
    bool hasStack = false;
    for (const KeyAverage& r : rows) {
        nameWidth = std::max(nameWidth, pyformat::length(r.key) + 4);
        shapesWidth = std::max(shapesWidth, pyformat::length(r.inputShapes) + 4);
        for (const std::string& f : r.stack)
            sourceWidth = std::max(sourceWidth, pyformat::length(f) + 4);
        hasStack = hasStack || !r.stack.empty();
    }
    sourceWidth = std::min(sourceWidth, o.maxSourceColumnWidth);
    nameWidth = std::min(nameWidth, o.maxNameColumnWidth);
    shapesWidth = std::min(shapesWidth, o.maxShapesColumnWidth);

    const std::string& dev = o.deviceName;
    Layout layout;
    layout.add("Name", nameWidth);
    for (const char* t : {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"})
        layout.add(t, kColumnWidth);
    if (hasDeviceTime) {
        layout.add("Self " + dev, kColumnWidth);
        layout.add("Self " + dev + " %", kColumnWidth);
        layout.add(dev + " total", kColumnWidth);
        layout.add(dev + " time avg", kColumnWidth);
    }
    const bool deviceMemColumns = o.profileMemory && (o.useDevice || !torch2) && hasDeviceMem;
    if (o.profileMemory) {
        layout.add("CPU Mem", kColumnWidth);
        layout.add("Self CPU Mem", kColumnWidth);
        if (deviceMemColumns) {
            layout.add(dev + " Mem", kColumnWidth);
            layout.add("Self " + dev + " Mem", kColumnWidth);
        }
    }
    layout.add("# of Calls", kColumnWidth);
    if (hasShapes) layout.add("Input Shapes", shapesWidth);
    if (hasStack) layout.add("Source Location", sourceWidth, true);

    // FLOPs share one unit, picked from the smallest positive count.
    bool flopsColumn = false;
    double flopsScale = 1.0;
    if (o.withFlops) {
        int64_t smallest = 0;
        for (const KeyAverage& r : rows)
            if (r.flops > 0 && (smallest == 0 || r.flops < smallest)) smallest = r.flops;
        if (smallest > 0) {
            static const char* const kUnits[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
            const double scaled = std::max(0.0, std::min(std::log10(double(smallest)) / 3.0, 5.0));
            flopsScale = std::pow(10.0, std::floor(scaled) * -3.0);
            layout.add(std::string("Total ") + kUnits[int(scaled)], kColumnWidth);
            flopsColumn = true;
        }
    }

    double selfCpuTotal = 0;
    double selfDeviceTotal = 0;
    for (const KeyAverage& r : rows) {
        selfCpuTotal += r.selfCpuTimeTotal;
        // Each kernel once: device rows, but (torch 2.x) not the GPU copies of annotations, which
        // span kernels; legacy rows hold their kernels' time themselves.
        if ((r.deviceType && (!r.userAnnotation || !torch2)) || (r.legacy && !r.userAnnotation))
            selfDeviceTotal += r.selfDeviceTimeTotal;
    }

    std::string out;
    const size_t line = layout.lineLength();
    if (o.header) {
        out.append(line, '=');
        out += '\n';
        out += *o.header;
        out += '\n';
    }
    if (o.topLevelOnly) {
        out.append(line, '=');
        out += "\nThis report only display top-level ops statistics\n";
    }
    layout.separator(out);
    layout.row(out, layout.titles());
    layout.separator(out);

    const std::string_view tu = o.timeUnit;
    const size_t nameLimit = o.maxNameColumnWidth >= 3 ? o.maxNameColumnWidth - 3 : 0;
    std::vector<std::string> cells;
    int64_t printed = 0;
    for (const KeyAverage& r : rows) {
        if (printed == o.rowLimit) break;
        if (o.topLevelOnly && !r.topLevel) continue;
        ++printed;
        cells.clear();
        std::string name = r.key;
        if (pyformat::length(name) >= nameLimit)
            name = std::string(pyformat::prefix(name, nameLimit)) + "...";
        cells.push_back(std::move(name));
        cells.push_back(pyformat::percent(r.selfCpuTimeTotal, selfCpuTotal));
        cells.push_back(pyformat::time(r.selfCpuTimeTotal, tu));
        cells.push_back(pyformat::percent(r.cpuTimeTotal, selfCpuTotal));
        cells.push_back(pyformat::time(r.cpuTimeTotal, tu));
        cells.push_back(pyformat::time(r.cpuTime(), tu));
        if (hasDeviceTime) {
            cells.push_back(pyformat::time(r.selfDeviceTimeTotal, tu));
            cells.push_back(pyformat::percent(r.selfDeviceTimeTotal, selfDeviceTotal));
            cells.push_back(pyformat::time(r.deviceTimeTotal, tu));
            cells.push_back(pyformat::time(r.deviceTime(), tu));
        }
        if (o.profileMemory) {
            cells.push_back(pyformat::memory(r.cpuMemoryUsage, o.memoryUnits));
            cells.push_back(pyformat::memory(r.selfCpuMemoryUsage, o.memoryUnits));
            if (deviceMemColumns) {
                cells.push_back(pyformat::memory(r.deviceMemoryUsage, o.memoryUnits));
                cells.push_back(pyformat::memory(r.selfDeviceMemoryUsage, o.memoryUnits));
            }
        }
        cells.push_back(std::to_string(r.count));
        if (hasShapes) cells.emplace_back(pyformat::prefix(r.inputShapes, shapesWidth));
        // torch appends FLOPs before the frame although its header has Source Location first; the
        // cells follow torch (a table with both shows each under the other's title).
        if (flopsColumn)
            cells.push_back(r.flops <= 0 ? std::string("--")
                                         : pyformat::fixed8(double(r.flops) * flopsScale));
        if (hasStack) cells.push_back(r.stack.empty() ? std::string() : trimFrame(r.stack[0], sourceWidth));
        layout.row(out, cells);
        if (hasStack) {
            // Further frames in the last column, then a blank row.
            std::vector<std::string> more(cells.size());
            const size_t frames = torch2 ? r.stack.size() : std::min(r.stack.size(), kMaxStackEntries113);
            for (size_t i = 1; i < frames; ++i) {
                more.back() = trimFrame(r.stack[i], sourceWidth);
                layout.row(out, more);
            }
            more.back().clear();
            layout.row(out, more);
        }
    }
    layout.separator(out);
    out += "Self CPU time total: " + pyformat::time(selfCpuTotal, tu) + "\n";
    if (hasDeviceTime) out += "Self " + dev + " time total: " + pyformat::time(selfDeviceTotal, tu) + "\n";
    return out;
}

} // namespace ks
