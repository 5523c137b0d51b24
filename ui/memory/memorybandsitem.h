#pragma once

#include "core/analysis/memory/memorycurve.h"

#include <QGraphicsItem>
#include <QImage>

namespace ks {

// The stacked category bands of a memory chart, drawn into the chart's plot area one pixel column
// at a time from MemoryCurve::envelope: every column shows exactly the extent each band covers in
// its time slice. Qt Charts' QAreaSeries rasterises a jagged outline (a training loop squeezed to a
// few pixels per iteration) in seconds; this costs one pass over the visible events per range or
// size change and one image blit per paint.
class MemoryBandsItem : public QGraphicsItem {
public:
    explicit MemoryBandsItem(QGraphicsItem* parent = nullptr);

    // Draws one envelope column per pixel into plotArea (the parent's coordinates), with bytes
    // mapped so that yMaxBytes is the top edge.
    void update(const std::vector<MemoryCurve::Column>& columns, const QRectF& plotArea, double yMaxBytes);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QImage& image() const { return m_image; }

private:
    QRectF m_rect;
    QImage m_image;
};

} // namespace ks
