#pragma once

#include "core/util/raster.h"

#include <cstdint>
#include <string_view>

namespace ks {

// A small fixed-width bitmap font of our own for printable ASCII (other bytes draw as '?'), scaled by
// whole pixels. It lets the Qt-free core label the charts it renders.
class BitmapFont {
public:
    static constexpr int kGlyphColumns = 5;
    static constexpr int kGlyphRows = 9; // 7 above the baseline, 2 descender rows
    static constexpr int kCapRows = 7;
    static constexpr int kAdvance = 6; // columns from one glyph to the next

    // Whether the glyph of ch has ink at (column, row).
    static bool ink(char ch, int column, int row);
    static int textWidth(std::string_view text, int scale);
    static int lineHeight(int scale) { return kGlyphRows * scale; }
    // Draws with the glyph cell's top-left corner at (x, y).
    static void drawText(Raster& r, int x, int y, std::string_view text, int scale, uint32_t color);
    // Draws turned a quarter counter-clockwise, starting at (x, y) and running upwards; the glyph
    // cells' tops face x.
    static void drawTextUp(Raster& r, int x, int y, std::string_view text, int scale, uint32_t color);
};

} // namespace ks
