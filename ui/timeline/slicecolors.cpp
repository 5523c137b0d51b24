#include "timeline/slicecolors.h"

#include <string_view>

namespace ks::ui {

namespace {

// Vivid palette for ops and kernels (no greens or violets: those mark memcpy and memset).
constexpr const char* kVivid[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
                                  "#a0cbe8", "#ffbe7d", "#ff9d9a", "#86bcb6", "#f1ce63", "#d7b5a6", "#6b9ac4",
                                  "#e8a33d", "#c9705f", "#5fa2a8", "#d4a95b", "#b5838d", "#7f9fc0"};
// Quiet palette for Python frames, which often stack ten deep above the ops that matter.
constexpr const char* kMuted[] = {"#c8d3df", "#d9d0e3", "#e3dccb", "#cfe0dc", "#e0cfd3",
                                  "#d3dcc8", "#cbd8e6", "#e6d8c8", "#d8cbe0", "#c9ddd6"};
constexpr int kVividCount = int(std::size(kVivid));
constexpr int kMutedCount = int(std::size(kMuted));
constexpr int kMemcpy = kVividCount + kMutedCount;
constexpr int kMemset = kMemcpy + 1;
constexpr int kRuntime = kMemcpy + 2;
constexpr int kSync = kMemcpy + 3;
constexpr int kStep = kMemcpy + 4;
constexpr int kOther = kMemcpy + 5;
constexpr int kSpan = kMemcpy + 6;
static_assert(kSpan < SliceColors::kCount);

} // namespace

SliceColors::SliceColors()
{
    for (int i = 0; i < kCount; ++i)
        m_colors[i] = QColor(0xbd, 0xbd, 0xbd);
    for (int i = 0; i < kVividCount; ++i)
        m_colors[i] = QColor(QLatin1String(kVivid[i]));
    for (int i = 0; i < kMutedCount; ++i)
        m_colors[kVividCount + i] = QColor(QLatin1String(kMuted[i]));
    m_colors[kMemcpy] = QColor(0x3c, 0xa9, 0x51);
    m_colors[kMemset] = QColor(0x9b, 0x6b, 0xd6);
    m_colors[kRuntime] = QColor(0xa9, 0xb3, 0xbe);
    m_colors[kSync] = QColor(0xd9, 0x4f, 0x4f);
    m_colors[kStep] = QColor(0xd8, 0xcb, 0x9a);
    m_colors[kOther] = QColor(0xbf, 0xbf, 0xbf);
    m_colors[kSpan] = QColor(0xdd, 0xdd, 0xdd);
    for (int i = 0; i < kCount; ++i) {
        const QColor& c = m_colors[i];
        const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
        m_text[i] = luminance < 0.5 ? QColor(Qt::white) : QColor(0x1d, 0x1d, 0x1f);
    }
}

void SliceColors::reset(const Trace* trace)
{
    m_trace = trace;
    m_byName.clear();
    m_kindOfCached.clear();
}

uint8_t SliceColors::compute(StringId name, EventKind kind) const
{
    switch (kind) {
    case EventKind::Memcpy:
        return kMemcpy;
    case EventKind::Memset:
        return kMemset;
    case EventKind::Runtime:
    case EventKind::Driver:
        return kRuntime;
    case EventKind::Sync:
        return kSync;
    case EventKind::Span:
        return kSpan;
    case EventKind::Overhead:
        return kOther;
    default:
        break;
    }
    if (!m_trace || !name.valid()) return kOther;
    const std::string_view text = m_trace->str(name);
    if (text.rfind("ProfilerStep", 0) == 0) return kStep;
    const uint64_t h = m_trace->strings().hashOf(name);
    if (kind == EventKind::PythonFunction) return uint8_t(kVividCount + (h >> 7) % kMutedCount);
    return uint8_t((h >> 7) % kVividCount);
}

uint8_t SliceColors::indexOf(StringId name, EventKind kind) const
{
    if (!name.valid()) return compute(name, kind);
    if (name.value >= m_byName.size()) {
        m_byName.resize(name.value + 1024, 0xff);
        m_kindOfCached.resize(name.value + 1024, 0xff);
    }
    uint8_t& cached = m_byName[name.value];
    if (cached == 0xff || m_kindOfCached[name.value] != uint8_t(kind)) {
        cached = compute(name, kind);
        m_kindOfCached[name.value] = uint8_t(kind);
    }
    return cached;
}

} // namespace ks::ui
