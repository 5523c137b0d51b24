#include "core/util/raster.h"

#include <algorithm>
#include <cmath>

namespace ks {

Raster::Raster(int width, int height, uint32_t background)
    : m_width(std::max(0, width)), m_height(std::max(0, height)), m_rgb(size_t(m_width) * m_height * 3)
{
    for (size_t i = 0; i < m_rgb.size(); i += 3) {
        m_rgb[i] = uint8_t(background >> 16);
        m_rgb[i + 1] = uint8_t(background >> 8);
        m_rgb[i + 2] = uint8_t(background);
    }
}

uint32_t Raster::pixel(int x, int y) const
{
    if (x < 0 || y < 0 || x >= m_width || y >= m_height) return 0;
    const uint8_t* p = &m_rgb[(size_t(y) * m_width + x) * 3];
    return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
}

void Raster::blendPixel(int x, int y, uint32_t color, float alpha)
{
    if (x < 0 || y < 0 || x >= m_width || y >= m_height || alpha <= 0.f) return;
    alpha = std::min(alpha, 1.f);
    uint8_t* p = &m_rgb[(size_t(y) * m_width + x) * 3];
    const int c[3] = {int(color >> 16) & 0xff, int(color >> 8) & 0xff, int(color) & 0xff};
    for (int k = 0; k < 3; ++k)
        p[k] = uint8_t(std::lround(p[k] + (c[k] - p[k]) * alpha));
}

void Raster::fillRect(int x0, int y0, int x1, int y1, uint32_t color, float alpha)
{
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, m_width);
    y1 = std::min(y1, m_height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            blendPixel(x, y, color, alpha);
}

void Raster::fillColumn(int x, double y0, double y1, uint32_t color, float alpha)
{
    if (x < 0 || x >= m_width) return;
    if (y1 < y0) std::swap(y0, y1);
    y0 = std::max(y0, 0.0);
    y1 = std::min(y1, double(m_height));
    if (y1 <= y0) return;
    const int first = int(std::floor(y0));
    const int last = int(std::ceil(y1)) - 1;
    for (int y = first; y <= last; ++y) {
        const double cover = std::min(y1, double(y + 1)) - std::max(y0, double(y));
        if (cover > 0) blendPixel(x, y, color, alpha * float(cover));
    }
}

void Raster::hline(int x0, int x1, int y, uint32_t color)
{
    if (x1 < x0) std::swap(x0, x1);
    fillRect(x0, y, x1 + 1, y + 1, color);
}

void Raster::vline(int x, int y0, int y1, uint32_t color)
{
    if (y1 < y0) std::swap(y0, y1);
    fillRect(x, y0, x + 1, y1 + 1, color);
}

void Raster::strokeRect(int x0, int y0, int x1, int y1, uint32_t color)
{
    hline(x0, x1, y0, color);
    hline(x0, x1, y1, color);
    vline(x0, y0, y1, color);
    vline(x1, y0, y1, color);
}

} // namespace ks
