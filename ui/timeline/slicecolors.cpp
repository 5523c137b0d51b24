#include "ui/timeline/slicecolors.h"

#include "ui/util/theme.h"

#include <string_view>

namespace ks::ui {

namespace {

// Per-name hues come from the theme; their counts are fixed so a name keeps its hue across themes.
constexpr int kVividCount = 20; // Palette::sliceHues
constexpr int kMutedCount = 10; // Palette::quietSliceHues
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
    reloadColors();
}

void SliceColors::reloadColors()
{
    const Palette& pal = Theme::palette();
    Q_ASSERT(pal.sliceHues.size() == size_t(kVividCount) && pal.quietSliceHues.size() == size_t(kMutedCount));
    for (int i = 0; i < kCount; ++i)
        m_colors[i] = pal.unknown;
    for (int i = 0; i < kVividCount; ++i)
        m_colors[i] = pal.sliceHues[size_t(i)];
    for (int i = 0; i < kMutedCount; ++i)
        m_colors[kVividCount + i] = pal.quietSliceHues[size_t(i)];
    m_colors[kMemcpy] = pal.memcpy;
    m_colors[kMemset] = pal.memset;
    m_colors[kRuntime] = pal.runtime;
    m_colors[kSync] = pal.sync;
    m_colors[kStep] = pal.step;
    m_colors[kOther] = pal.other;
    m_colors[kSpan] = pal.span;
    m_opaque = true;
    for (int i = 0; i < kCount; ++i) {
        const QColor& c = m_colors[i];
        m_brushes[i] = QBrush(c);
        m_opaque = m_opaque && c.alpha() == 255;
        const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
        m_text[i] = luminance < 0.5 ? pal.onDarkFill : pal.onLightFill;
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
