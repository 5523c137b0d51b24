#include "core/analysis/memory/memorychart.h"

#include "core/util/bitmapfont.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ks {

namespace {

constexpr int kTextScale = 2;
constexpr uint32_t kBlack = 0x000000;
constexpr float kBandAlpha = 0.7f; // torch's fill_between alpha
// matplotlib draws each band's outline one point wide; at 80 dpi half of it is about 0.55 px.
constexpr double kEdgeHalfWidth = 0.55;

struct Axis {
    double lo = 0;
    double hi = 1;
    std::vector<double> ticks;
    std::vector<std::string> labels;
    std::string offset; // "1e-6" when labels are scaled
};

// Picks at most maxBins intervals on a 1-2-2.5-5-10 ladder, as matplotlib's default locator does.
double tickStep(double span, int maxBins)
{
    const double raw = span / maxBins;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}

Axis makeAxis(double dataLo, double dataHi)
{
    Axis a;
    if (!(dataHi > dataLo)) {
        const double pad = dataLo == 0 ? 1.0 : std::abs(dataLo) * 0.05;
        dataLo -= pad;
        dataHi += pad;
    }
    // Default 5% margins on both sides.
    const double margin = (dataHi - dataLo) * 0.05;
    a.lo = dataLo - margin;
    a.hi = dataHi + margin;
    const double step = tickStep(a.hi - a.lo, 9);
    const double first = std::ceil(a.lo / step - 1e-9) * step;
    for (double t = first; t <= a.hi + step * 1e-9; t += step)
        a.ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);

    double maxAbs = 0;
    for (double t : a.ticks)
        maxAbs = std::max(maxAbs, std::abs(t));
    double scale = 1;
    if (maxAbs > 0 && maxAbs < 1e-4) {
        const int e = int(std::floor(std::log10(maxAbs)));
        scale = std::pow(10.0, -e);
        a.offset = "1e" + std::to_string(e);
    }
    int decimals = 0;
    for (; decimals < 10; ++decimals) {
        bool exact = true;
        const double f = std::pow(10.0, decimals);
        for (double t : a.ticks) {
            const double v = t * scale * f;
            exact &= std::abs(v - std::round(v)) < 1e-6 * std::max(1.0, std::abs(v));
        }
        if (exact) break;
    }
    // matplotlib's formatter keeps one decimal when the step is not whole and writes 0 as "0.0".
    for (double t : a.ticks) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, t * scale);
        a.labels.emplace_back(buf);
    }
    return a;
}

struct Frame {
    int left, right, top, bottom; // axes box in pixels (right/bottom inclusive)
    double xToPx(const Axis& a, double v) const { return left + (v - a.lo) / (a.hi - a.lo) * (right - left); }
    double yToPx(const Axis& a, double v) const
    {
        return bottom - (v - a.lo) / (a.hi - a.lo) * (bottom - top);
    }
};

void drawBands(Raster& r, const MemoryChartData& d, const Frame& f, const Axis& ax, const Axis& ay)
{
    const int columns = f.right - f.left;
    const double inf = std::numeric_limits<double>::infinity();
    constexpr size_t kBands = kMemoryCategoryCount;
    // Per column and band: the lowest lower edge and the highest upper edge over the data in that
    // column, i.e. the vertical extent a filled polygon covers there.
    std::vector<std::array<double, kBands>> low(columns), high(columns);
    for (auto& v : low)
        v.fill(inf);
    for (auto& v : high)
        v.fill(-inf);

    auto note = [&](int c, const std::array<double, kBands + 1>& s) {
        if (c < 0 || c >= columns) return;
        for (size_t b = 0; b < kBands; ++b) {
            low[c][b] = std::min(low[c][b], s[b]);
            high[c][b] = std::max(high[c][b], s[b + 1]);
        }
    };
    const size_t n = std::min(d.x.size(), d.stacked.size());
    for (size_t i = 0; i + 1 < n; ++i) {
        const double p0 = f.xToPx(ax, d.x[i]) - f.left, p1 = f.xToPx(ax, d.x[i + 1]) - f.left;
        const auto& s0 = d.stacked[i];
        const auto& s1 = d.stacked[i + 1];
        if (!(p1 > p0)) {
            note(int(std::floor(p0)), s0);
            note(int(std::floor(p0)), s1);
            continue;
        }
        const int c0 = std::max(0, int(std::floor(p0))), c1 = std::min(columns - 1, int(std::floor(p1)));
        for (int c = c0; c <= c1; ++c) {
            // The part of the segment inside column c, evaluated at both of its ends.
            for (double p : {std::max(p0, double(c)), std::min(p1, double(c + 1))}) {
                const double w = (p - p0) / (p1 - p0);
                std::array<double, kBands + 1> s;
                for (size_t k = 0; k <= kBands; ++k)
                    s[k] = s0[k] + (s1[k] - s0[k]) * w;
                note(c, s);
            }
        }
    }
    if (n == 1) note(int(std::floor(f.xToPx(ax, d.x[0]) - f.left)), d.stacked[0]);

    for (size_t b = 0; b < kBands; ++b) {
        const uint32_t color = memoryCategoryColor(MemoryCategory(b));
        for (int c = 0; c < columns; ++c) {
            if (high[c][b] < low[c][b]) continue;
            double y0 = f.yToPx(ay, high[c][b]) - kEdgeHalfWidth;
            double y1 = f.yToPx(ay, low[c][b]) + kEdgeHalfWidth;
            y0 = std::max(y0, double(f.top));
            y1 = std::min(y1, double(f.bottom));
            r.fillColumn(f.left + c, y0, y1, color, kBandAlpha);
        }
    }
}

void drawAxes(Raster& r, const Frame& f, const Axis& ax, const Axis& ay)
{
    constexpr int kTick = 4, kPad = 4;
    const int th = BitmapFont::kCapRows * kTextScale;
    for (size_t i = 0; i < ax.ticks.size(); ++i) {
        const int x = int(std::lround(f.xToPx(ax, ax.ticks[i])));
        if (x < f.left || x > f.right) continue;
        r.vline(x, f.bottom, f.bottom + kTick, kBlack);
        const int w = BitmapFont::textWidth(ax.labels[i], kTextScale);
        BitmapFont::drawText(r, x - w / 2, f.bottom + kTick + kPad, ax.labels[i], kTextScale, kBlack);
    }
    int widest = 0;
    for (size_t i = 0; i < ay.ticks.size(); ++i) {
        const int y = int(std::lround(f.yToPx(ay, ay.ticks[i])));
        if (y < f.top || y > f.bottom) continue;
        r.hline(f.left - kTick, f.left, y, kBlack);
        const int w = BitmapFont::textWidth(ay.labels[i], kTextScale);
        widest = std::max(widest, w);
        BitmapFont::drawText(r, f.left - kTick - kPad - w, y - th / 2, ay.labels[i], kTextScale, kBlack);
    }
    r.strokeRect(f.left, f.top, f.right, f.bottom, kBlack);

    const std::string xl = "Time (ms)";
    const int xlw = BitmapFont::textWidth(xl, kTextScale);
    const int xlY = f.bottom + kTick + kPad + BitmapFont::lineHeight(kTextScale) + 4;
    BitmapFont::drawText(r, (f.left + f.right) / 2 - xlw / 2, xlY, xl, kTextScale, kBlack);
    const std::string yl = "Memory (GB)";
    const int ylw = BitmapFont::textWidth(yl, kTextScale);
    const int ylX = f.left - kTick - kPad - widest - 4 - BitmapFont::lineHeight(kTextScale);
    BitmapFont::drawTextUp(r, ylX, (f.top + f.bottom) / 2 + ylw / 2, yl, kTextScale, kBlack);
    if (!ay.offset.empty())
        BitmapFont::drawText(r, f.left, f.top - BitmapFont::lineHeight(kTextScale) - 2, ay.offset, kTextScale,
                             kBlack);
}

void drawTitle(Raster& r, const Frame& f, const std::string& title)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (true) {
        const size_t nl = title.find('\n', start);
        lines.push_back(title.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    const int lh = BitmapFont::lineHeight(kTextScale) + 2;
    constexpr int kPad = 7; // 6 pt above the axes
    int y = f.top - kPad - int(lines.size()) * lh;
    const int cx = (f.left + f.right) / 2;
    for (const std::string& line : lines) {
        const int w = BitmapFont::textWidth(line, kTextScale);
        BitmapFont::drawText(r, cx - w / 2, y, line, kTextScale, kBlack);
        y += lh;
    }
}

// The legend's box (fig.legend's frame) at the figure's right edge, top aligned.
constexpr int kLegendEdge = 6, kLegendBorder = 6, kHandleW = 28, kHandleH = 10, kLegendGap = 11,
              kLegendSpacing = 7;
// Space between the axes box and the legend.
constexpr int kLegendMargin = 14;

int legendWidth()
{
    int textW = 0;
    for (size_t b = 0; b < kMemoryCategoryCount; ++b)
        textW = std::max(textW, BitmapFont::textWidth(memoryCategoryLabel(MemoryCategory(b)), kTextScale));
    return kLegendBorder * 2 + kHandleW + kLegendGap + textW;
}

void drawLegend(Raster& r)
{
    const int lh = BitmapFont::kCapRows * kTextScale;
    const int w = legendWidth();
    const int h =
        kLegendBorder * 2 + int(kMemoryCategoryCount) * lh + int(kMemoryCategoryCount - 1) * kLegendSpacing;
    const int x0 = r.width() - kLegendEdge - w, y0 = kLegendEdge;
    r.fillRect(x0, y0, x0 + w, y0 + h, 0xffffff, 0.8f);
    r.strokeRect(x0, y0, x0 + w - 1, y0 + h - 1, 0xcccccc);
    for (size_t b = 0; b < kMemoryCategoryCount; ++b) {
        const int y = y0 + kLegendBorder + int(b) * (lh + kLegendSpacing);
        const MemoryCategory c = MemoryCategory(b);
        const int hy = y + (lh - kHandleH) / 2;
        r.fillRect(x0 + kLegendBorder, hy, x0 + kLegendBorder + kHandleW, hy + kHandleH,
                   memoryCategoryColor(c), kBandAlpha);
        BitmapFont::drawText(r, x0 + kLegendBorder + kHandleW + kLegendGap, y, memoryCategoryLabel(c),
                             kTextScale, kBlack);
    }
}

} // namespace

Raster renderMemoryChart(const MemoryChartData& data, int width, int height)
{
    Raster r(width, height);
    // matplotlib's default subplot box: 12.5%–90% across, 11%–88% up.
    Frame f;
    f.left = int(std::lround(0.125 * width));
    // matplotlib's figure legend sits in the top-right corner over the axes, where it hid the
    // newest (often the highest) memory; the axes end left of it instead.
    f.right = std::min(int(std::lround(0.9 * width)), width - kLegendEdge - legendWidth() - kLegendMargin);
    f.top = int(std::lround((1 - 0.88) * height));
    f.bottom = int(std::lround((1 - 0.11) * height));

    double xLo = 0, xHi = 0, yLo = 0, yHi = 0;
    const size_t n = std::min(data.x.size(), data.stacked.size());
    if (n > 0) {
        xLo = xHi = data.x[0];
        yLo = yHi = data.stacked[0][0];
        for (size_t i = 0; i < n; ++i) {
            xLo = std::min(xLo, data.x[i]);
            xHi = std::max(xHi, data.x[i]);
            for (double v : data.stacked[i]) {
                yLo = std::min(yLo, v);
                yHi = std::max(yHi, v);
            }
        }
    }
    const Axis ax = makeAxis(xLo, xHi);
    const Axis ay = makeAxis(yLo, yHi);
    if (n > 0) drawBands(r, data, f, ax, ay);
    drawAxes(r, f, ax, ay);
    drawTitle(r, f, data.title);
    drawLegend(r);
    return r;
}

} // namespace ks
