#include "ui/memory/memorybandsitem.h"

#include <QPainter>
#include <cmath>

namespace ks {

MemoryBandsItem::MemoryBandsItem(QGraphicsItem* parent) : QGraphicsItem(parent) {}

void MemoryBandsItem::update(const std::vector<MemoryCurve::Column>& cols, const QRectF& plotArea,
                             double yMaxBytes)
{
    prepareGeometryChange();
    m_rect = plotArea;
    const int h = int(std::floor(plotArea.height()));
    const int w = std::min(int(cols.size()), int(std::floor(plotArea.width())) + 1);
    if (cols.empty() || w <= 0 || h <= 0 || yMaxBytes <= 0) {
        m_image = QImage();
        return;
    }
    m_image = QImage(w, h, QImage::Format_ARGB32_Premultiplied);
    m_image.fill(Qt::transparent);
    const double scale = h / yMaxBytes;
    QPainter p(&m_image);
    std::array<QColor, kMemoryCategoryCount> colors;
    for (size_t b = 0; b < kMemoryCategoryCount; ++b) {
        colors[b] = QColor::fromRgb(memoryCategoryColor(MemoryCategory(b)));
        colors[b].setAlphaF(0.75);
    }
    for (int x = 0; x < w; ++x) {
        const MemoryCurve::Column& c = cols[size_t(x)];
        for (size_t b = 0; b < kMemoryCategoryCount; ++b) {
            if (c.peak[b] <= 0) continue; // the category holds nothing in this column
            const double top = h - c.hi[b + 1] * scale, bottom = h - c.lo[b] * scale;
            // At least one pixel, so that a thin band in a tall chart stays visible.
            const int y0 = std::max(0, int(std::floor(top))),
                      y1 = std::min(h, std::max(y0 + 1, int(std::ceil(bottom))));
            if (y1 > y0) p.fillRect(x, y0, 1, y1 - y0, colors[b]);
        }
    }
}

QRectF MemoryBandsItem::boundingRect() const
{
    return m_rect;
}

void MemoryBandsItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    if (!m_image.isNull()) painter->drawImage(m_rect.topLeft(), m_image);
}

} // namespace ks
