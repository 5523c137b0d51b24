#pragma once

#include <cstdint>
#include <vector>

namespace ks {

// A plain 8-bit RGB pixel buffer with the few drawing operations a static chart needs. Colours are
// 0xRRGGBB; alpha (0..1) blends over what is already there. Everything clips to the buffer.
class Raster {
public:
    Raster(int width, int height, uint32_t background = 0xffffff);

    int width() const { return m_width; }
    int height() const { return m_height; }
    const std::vector<uint8_t>& pixels() const { return m_rgb; }
    uint32_t pixel(int x, int y) const;

    void blendPixel(int x, int y, uint32_t color, float alpha = 1.f);
    // Fills the half-open rectangle [x0, x1) × [y0, y1).
    void fillRect(int x0, int y0, int x1, int y1, uint32_t color, float alpha = 1.f);
    // Fills rows [y0, y1) of column x; fractional ends are blended by their coverage.
    void fillColumn(int x, double y0, double y1, uint32_t color, float alpha = 1.f);
    void hline(int x0, int x1, int y, uint32_t color);
    void vline(int x, int y0, int y1, uint32_t color);
    // Outline of [x0, x1] × [y0, y1], one pixel wide.
    void strokeRect(int x0, int y0, int x1, int y1, uint32_t color);

private:
    int m_width;
    int m_height;
    std::vector<uint8_t> m_rgb;
};

} // namespace ks
