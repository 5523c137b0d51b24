#pragma once

#include "core/analysis/snapshot/allocatorstate.h"

#include <QWidget>
#include <memory>

namespace ks::ui {

struct SnapshotDocument;

// memory_viz's "Allocator State History" at one entry: the device's segments, one row each by
// address, with their blocks (allocated in their colour, the bytes lost to rounding and the blocks
// freed but waiting for their stream in red, free space left empty) and, above, reserved,
// allocated and their difference, the fragmentation. Hovering a block tells which one it is.
class SegmentView : public QWidget {
    Q_OBJECT
public:
    explicit SegmentView(QWidget* parent = nullptr);

    void setState(std::shared_ptr<const SnapshotDocument> doc, AllocatorState state, QString title);
    // The rows' order: by address (the allocator's map), or the fullest or the emptiest first.
    enum class Order { Address, MostAllocated, MostFree };
    void setOrder(Order order);
    // Its segments in the rows' order.
    const AllocatorState& state() const { return m_state; }
    QString summary() const;
    // The block (segment index, block index) under a point; {-1, -1} for none, {s, -1} for the
    // free space of segment s.
    std::pair<int, int> blockAt(QPoint p) const;
    QRect rowRect(int segment) const;
    QSize sizeHint() const override;

signals:
    void blockHovered(const QString& text);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    int barLeft() const;
    void sortRows();
    double bytesPerPixel() const;

    std::shared_ptr<const SnapshotDocument> m_doc;
    AllocatorState m_state;
    QString m_title;
    int64_t m_largest = 1;
    Order m_order = Order::MostAllocated;
};

} // namespace ks::ui
