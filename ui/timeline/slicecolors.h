#pragma once

#include "core/model/trace.h"

#include <QBrush>
#include <QColor>
#include <cstdint>
#include <vector>

namespace ks::ui {

// Colours of slices: a stable colour per name (hash of the text, so the same op has the same
// colour in every trace), with fixed colours for kinds that should stand out: memcpy and memset
// never share a colour with kernels, runtime calls are a quiet grey, syncs red. Colours are small
// indices so the painter can batch rectangles per colour.
class SliceColors {
public:
    static constexpr int kCount = 48;

    SliceColors();

    void reset(const Trace* trace);
    // Takes the colours from the current theme (indices, and so the cache, stay valid).
    void reloadColors();
    uint8_t indexOf(StringId name, EventKind kind) const;
    const QColor& color(uint8_t index) const { return m_colors[index]; }
    // The colour as a solid brush, made once: QPainter::setBrush() with the brush it already has
    // returns at once, where a QColor would build a new brush every call.
    const QBrush& brush(uint8_t index) const { return m_brushes[index]; }
    // Every slice colour is fully opaque (then painting order alone decides a pixel).
    bool opaque() const { return m_opaque; }
    const QColor& textColor(uint8_t index) const { return m_text[index]; }

private:
    uint8_t compute(StringId name, EventKind kind) const;

    const Trace* m_trace = nullptr;
    QColor m_colors[kCount];
    QBrush m_brushes[kCount];
    bool m_opaque = true;
    QColor m_text[kCount];
    // Cache keyed by StringId; 0xff = not computed. Kind is part of the key through a second table
    // for the rare name used by two kinds.
    mutable std::vector<uint8_t> m_byName;
    mutable std::vector<uint8_t> m_kindOfCached;
};

} // namespace ks::ui
