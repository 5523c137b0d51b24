#pragma once

#include "core/analysis/calltree/calltree.h"

#include <QHash>
#include <QPair>
#include <QString>
#include <QWidget>
#include <limits>
#include <memory>
#include <vector>

namespace ks::ui {

class CallTreeJob;
class TraceDocument;

// The call tree (core/analysis/calltree, docs/flame.md) as an icicle: the root's children on the top
// row, callees below their callers, each frame as wide as its value of the chosen metric.
//
// Frames narrower than a pixel are merged: consecutive ones are drawn as one grey block, and the
// children of a merged block are not visited, so a paint touches at most about width × depth
// frames whatever the tree's size. A search highlights the frames whose name holds the text; a
// double click (or zoomTo()) makes a frame the full width, its callers above it kept as a path.
// The tree is built for a time range (setRange(): the timeline's selection) or for merge by line,
// off the GUI thread (CallTreeJob): until it arrives the view says "Building call tree…" with the
// share done, and a newer request supersedes a running one. A live session's document is rebuilt
// with refreshGrowing(), keeping the shown tree (and the zoomed frame, found again by its path)
// until the new one arrives. A click on a frame emits frameActivated() with its node.
class FlameView : public QWidget {
    Q_OBJECT
public:
    explicit FlameView(QWidget* parent = nullptr);
    ~FlameView() override;

    // growing: a live session's document (see CallTreeJob). Builds the tree of [from, to).
    void setDocument(std::shared_ptr<const TraceDocument> doc, bool growing = false,
                     TimeNs from = std::numeric_limits<TimeNs>::min(),
                     TimeNs to = std::numeric_limits<TimeNs>::max());
    void setRange(TimeNs from, TimeNs to);
    void clearRange();
    // The document grew (a live session): a new build of the same range and mode, the shown tree
    // kept meanwhile. Nothing happens while a build runs: the session asks again a moment later.
    void refreshGrowing();
    // Whether a build runs, and its progress (per mille; -1 when none runs).
    bool isBuilding() const;
    int buildPermille() const;
    const std::shared_ptr<const TraceDocument>& document() const { return m_doc; }
    // The shown tree, shared with whoever needs it after the next build replaces it.
    std::shared_ptr<const CallTree> sharedTree() const { return m_tree; }
    const CallTreeOptions& options() const { return m_options; }
    void setMetric(CallTree::Metric metric);
    void setByLine(bool byLine);
    void setSearch(const QString& text);
    void zoomTo(uint32_t node); // 0: the whole tree

    const CallTree* tree() const { return m_tree.get(); }
    CallTree::Metric metric() const { return m_metric; }
    uint32_t zoomNode() const { return m_zoom; }
    // The clicked frame, outlined (UINT32_MAX: none; a new tree has none).
    uint32_t selectedNode() const { return m_selected; }
    // The node drawn at pos, or UINT32_MAX (empty space or a merged block).
    uint32_t nodeAt(QPoint pos) const;
    // The share of the zoomed frame's value in frames matching the search (nested matches once).
    double searchShare() const;
    // Frames and merged blocks the last paint drew.
    size_t paintedFrames() const { return m_painted; }
    size_t mergedBlocks() const { return m_merged; }

    static constexpr int kRowHeight = 18;

signals:
    void frameActivated(uint32_t node);
    void zoomChanged(uint32_t node);
    // A build finished and its tree is shown (node and frame numbers of the old one are void).
    void treeChanged();
    // A build started or moved on (per mille).
    void buildProgress(int permille);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;
    QSize sizeHint() const override;

private:
    struct Box {
        uint32_t node;
        double x, w;
        int row;
    };
    // keepShown: the shown tree stays until the new one arrives (a live session's refresh).
    void rebuild(bool keepShown = false);
    void adopt(std::shared_ptr<const CallTree> tree, bool keepZoom);
    void layout(std::vector<Box>& boxes, std::vector<Box>* merged) const;
    bool matches(uint32_t node) const;

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_growing = false;
    CallTreeJob* m_jobs = nullptr;
    std::shared_ptr<const CallTree> m_tree;
    CallTreeOptions m_options;
    CallTree::Metric m_metric = CallTree::Metric::Cpu;
    QString m_search;
    std::vector<uint8_t> m_match; // per node, with a search
    uint32_t m_zoom = 0;
    uint32_t m_selected = UINT32_MAX;
    mutable QHash<uint32_t, QPair<int, QString>> m_labels; // node -> (text width, elided label)
    mutable size_t m_painted = 0;
    mutable size_t m_merged = 0;
};

} // namespace ks::ui
