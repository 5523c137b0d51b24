#include "core/analysis/calltree/flamegraph.h"

#include "core/util/durationtext.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ks {

namespace {

void appendFoldedFrame(std::string& out, std::string_view name)
{
    for (char c : name)
        out.push_back(c == ';' || c == '\n' || c == '\r' ? '_' : c);
}

void appendXml(std::string& out, std::string_view text)
{
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            // Control characters are not allowed in XML 1.0.
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
                out.push_back(' ');
            else
                out.push_back(c);
        }
    }
}

const char* kindColour(FrameKind k)
{
    switch (k) {
    case FrameKind::Python:
        return "#e8c35a";
    case FrameKind::PythonLine:
        return "#f0d98c";
    case FrameKind::Module:
        return "#b28ddb";
    case FrameKind::Annotation:
        return "#7fc17f";
    case FrameKind::Op:
        return "#f29b5c";
    case FrameKind::Runtime:
        return "#e0675c";
    case FrameKind::Device:
        return "#5c9be0";
    default:
        return "#c8c8c8";
    }
}

std::string valueText(int64_t v, CallTree::Metric m)
{
    if (m == CallTree::Metric::Memory) {
        char buf[48];
        if (v >= (int64_t(1) << 20))
            std::snprintf(buf, sizeof buf, "%.2f MiB", double(v) / double(1 << 20));
        else if (v >= 1024)
            std::snprintf(buf, sizeof buf, "%.2f KiB", double(v) / 1024.0);
        else
            std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(v));
        return buf;
    }
    return durationText(double(v));
}

} // namespace

const char* metricName(CallTree::Metric metric)
{
    switch (metric) {
    case CallTree::Metric::Cpu:
        return "cpu";
    case CallTree::Metric::Device:
        return "device";
    case CallTree::Metric::Memory:
        return "memory";
    }
    return "cpu";
}

bool parseMetric(std::string_view text, CallTree::Metric& out)
{
    if (text == "cpu")
        out = CallTree::Metric::Cpu;
    else if (text == "device")
        out = CallTree::Metric::Device;
    else if (text == "memory")
        out = CallTree::Metric::Memory;
    else
        return false;
    return true;
}

std::string foldedText(const CallTree& tree, CallTree::Metric metric)
{
    std::map<std::string, int64_t> lines;
    std::string path;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        const int64_t v = CallTree::selfValue(tree.node(i), metric);
        if (v <= 0) continue;
        path.clear();
        for (uint32_t n : tree.path(i)) {
            if (!path.empty()) path.push_back(';');
            appendFoldedFrame(path, tree.frameOf(n).name);
        }
        lines[path] += v;
    }
    std::string out;
    for (const auto& [p, v] : lines) {
        out += p;
        out.push_back(' ');
        out += std::to_string(v);
        out.push_back('\n');
    }
    return out;
}

std::string flameSvg(const CallTree& tree, CallTree::Metric metric, const std::string& title, int width)
{
    constexpr int kFrameHeight = 16;
    constexpr int kTop = 36;
    constexpr double kMargin = 10;
    const double usable = double(width) - 2 * kMargin;
    const int64_t total = tree.size() ? CallTree::value(tree.node(0), metric) : 0;
    // Layout first: x and width per drawn node, depth for y.
    struct Box {
        uint32_t node;
        double x, w;
    };
    std::vector<Box> boxes;
    uint32_t maxDepth = 0;
    if (total > 0) {
        const double scale = usable / double(total);
        std::vector<Box> todo{{0, kMargin, usable}};
        while (!todo.empty()) {
            const Box b = todo.back();
            todo.pop_back();
            if (b.node != 0) {
                boxes.push_back(b);
                maxDepth = std::max(maxDepth, tree.node(b.node).depth);
            }
            double x = b.x;
            for (uint32_t c : tree.node(b.node).children) {
                const double w = double(CallTree::value(tree.node(c), metric)) * scale;
                if (w >= 0.1) todo.push_back(Box{c, x, w});
                if (w > 0) x += w;
            }
        }
    }
    const int height = kTop + int(maxDepth + 1) * kFrameHeight + 24;
    std::string out;
    out.reserve(boxes.size() * 200 + 1024);
    out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(width) +
           "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
           std::to_string(height) + "\" font-family=\"Verdana, sans-serif\" font-size=\"11\">\n";
    out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fbfbf6\"/>\n";
    out += "<text x=\"" + std::to_string(width / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">";
    appendXml(out, title);
    out += "</text>\n";
    if (total <= 0) out += "<text x=\"10\" y=\"50\">Nothing to show for this metric.</text>\n";
    char num[160];
    for (const Box& b : boxes) {
        const CallNode& n = tree.node(b.node);
        const Frame& f = tree.frame(n.frame);
        const int64_t v = CallTree::value(n, metric);
        // Root at the bottom: depth 1 on the lowest row.
        const double y = double(kTop) + double(maxDepth - n.depth) * kFrameHeight;
        out += "<g><title>";
        appendXml(out, f.name);
        std::snprintf(num, sizeof num, " (%s, %.2f%%, %lld calls)", valueText(v, metric).c_str(),
                      100.0 * double(v) / double(total), static_cast<long long>(n.calls));
        out += num;
        out += "</title>";
        std::snprintf(num, sizeof num,
                      "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>", b.x,
                      y, b.w, kFrameHeight - 1, kindColour(f.kind));
        out += num;
        // As many characters as fit at about 7 px each.
        const size_t fit = b.w > 21 ? size_t((b.w - 6) / 7) : 0;
        if (fit >= 3) {
            std::snprintf(num, sizeof num, "<text x=\"%.2f\" y=\"%.0f\">", b.x + 3, y + kFrameHeight - 4);
            out += num;
            if (f.name.size() <= fit) {
                appendXml(out, f.name);
            } else {
                // Cut at a character boundary, not inside a UTF-8 sequence.
                size_t cut = fit - 2;
                while (cut > 0 && (static_cast<unsigned char>(f.name[cut]) & 0xc0) == 0x80)
                    --cut;
                appendXml(out, f.name.substr(0, cut));
                out += "..";
            }
            out += "</text>";
        }
        out += "</g>\n";
    }
    out += "</svg>\n";
    return out;
}

} // namespace ks
