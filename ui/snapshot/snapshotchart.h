#pragma once

#include "ui/snapshot/snapshotdocument.h"

#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

namespace ks::ui {

// The active-memory timeline of one device, drawn as memory_viz draws it: each live allocation a
// band stacked over the trace entries, coloured per allocation, the summarized small ones on top.
// The pixels come from SnapshotBands::layout (one column of runs per pixel), so a redraw costs the
// pixels and the drawn bands alive, not the allocations. The wheel zooms around the cursor, a drag
// pans, Home or a double-click shows everything; the y axis fits the highest stack in view.
class SnapshotChart : public QWidget {
    Q_OBJECT
public:
    explicit SnapshotChart(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const SnapshotDocument> doc, size_t device);
    // Bands of another detail (memory_viz's slider) for the device; null: the document's own.
    void setBands(std::shared_ptr<const SnapshotBands> bands);
    const SnapshotBands& bands() const { return m_bands ? *m_bands : m_doc->bands[m_device]; }
    // The entries in view: x in [x0, x1), the state after entry e spanning [e, e + 1).
    void setView(double x0, double x1);
    double viewBegin() const { return m_x0; }
    double viewEnd() const { return m_x1; }
    void resetView();
    // The entry marked by a click (the allocator state shows it); UINT32_MAX: none.
    void setMarkedEntry(uint32_t entry);

    // Ops of a trace of the same run, drawn as a strip under the plot over the entries they span.
    struct OpSpan {
        uint32_t first = 0, last = 0; // entries
        QString name;
    };
    void setOps(std::vector<OpSpan> ops);
    const std::vector<OpSpan>& ops() const { return m_ops; }

    // Geometry, for the tests and the hover: the plot's pixel column of an entry's middle, the
    // pixel row of a byte count, and back.
    QRect plotRect() const;
    int xForEntry(double x) const;
    int yForBytes(double bytes) const;
    uint32_t entryAtX(int x) const;        // UINT32_MAX outside the trace
    uint32_t allocationAt(QPoint p) const; // UINT32_MAX: none
    double yMax() const { return m_yMax; }

signals:
    void hovered(uint32_t allocation, uint32_t entry);
    void entryClicked(uint32_t entry);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void relayout();
    void paintAxes(QPainter& p, const QRect& plot);
    void paintMarkers(QPainter& p, const QRect& plot);
    void paintOps(QPainter& p, const QRect& plot);
    int opStrip() const { return m_ops.empty() ? 0 : 16; }

    std::shared_ptr<const SnapshotDocument> m_doc;
    size_t m_device = 0;
    std::shared_ptr<const SnapshotBands> m_bands;
    std::vector<OpSpan> m_ops;
    double m_x0 = 0, m_x1 = 1;
    double m_yMax = 1;
    BandLayout m_layout;
    QImage m_image;
    bool m_dirty = true;
    uint32_t m_hover = UINT32_MAX;
    uint32_t m_marked = UINT32_MAX;
    QPoint m_pressPos;
    double m_pressX0 = 0, m_pressX1 = 0;
    bool m_dragging = false;
};

} // namespace ks::ui
