#pragma once

#include "ui/timeline/highlight.h"
#include "ui/timeline/timelinerenderer.h"
#include "ui/timeline/timelinestate.h"
#include "ui/util/metatypes.h"

#include <QAbstractScrollArea>

class QMenu;
#include <QElapsedTimer>
#include <memory>

namespace ks::ui {

class TraceDocument;
struct TimelineHit;

// The timeline: one viewport widget painting every track (no widget or item per event). Owns the
// view state (time window, vertical scroll, selection, range, highlight) and turns mouse, wheel,
// pinch and keyboard input into changes of it.
//
// Keys: W/S zoom in/out, A/D pan, F zoom to the selection (or fit), Home fit, Esc clear.
// Mouse: drag pans, Shift+drag selects a time range over the tracks it crosses, Ctrl+wheel or
// pinch zooms, wheel scrolls, Shift+wheel pans, click selects, double-click zooms to a slice,
// click a group header to collapse it, click a step in the step ruler to zoom to it.
class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    const TraceDocument* document() const { return m_doc.get(); }
    TimelineRenderer& renderer() { return m_renderer; }
    const TimelineState& state() const { return m_state; }

    TimeWindow window() const { return m_state.window; }
    TimeWindow bounds() const { return m_bounds; }
    void setWindow(TimeWindow w);
    void fitAll();
    // Zooms to the selected slice, else the selected range, else fits everything.
    void zoomToSelection();
    // factor < 1 zooms in; the anchor is the mouse position when over the tracks, else the centre.
    void zoomBy(double factor);
    // Moves by a fraction of the visible span (negative = earlier).
    void panBy(double fraction);
    void zoomToStep(int stepIndex);
    void zoomToSlice(SliceRef r);
    // The navigation keys (W/S/A/D/F/Home); returns false for any other key, leaving it unused.
    bool handleKey(QKeyEvent* e);

    SliceRef selectedSlice() const { return m_state.selected; }
    // Selects a slice; with reveal, scrolls/pans (expanding its group) until it is on screen.
    void selectSlice(SliceRef r, bool reveal = true);
    void clearSelection();
    void revealSlice(SliceRef r);

    void setRange(TimeNs t0, TimeNs t1, const std::vector<TrackId>& tracks);
    void clearRange();

    void setHighlight(std::shared_ptr<const Highlight> h);
    const Highlight* highlight() const { return m_highlight.get(); }
    // Moves to the next/previous occurrence after/before the current one (or the window's centre)
    // and selects it. Returns false when there is none.
    bool nextMatch();
    bool previousMatch();
    int currentMatchIndex() const { return m_matchIndex; }

    void setGroupCollapsed(int group, bool collapsed);
    void setAllGroupsCollapsed(bool collapsed);
    // Deep Python call stacks open folded (CondensedTrack); clicking a track's label unfolds or
    // folds it. The last choice is remembered (QSettings) for the traces opened next.
    void setStackUnfolded(int row, bool unfolded);
    void setAllStacksUnfolded(bool unfolded);
    static bool stacksUnfoldedByDefault();

    // Live sessions (timelinelive.cpp): the document's trace grew. `grown` lists tracks with new or
    // longer slices; structureChanged when tracks, counters or nesting levels were added. Keeps the
    // window, scroll and selection; while following, the window slides to keep the newest data in
    // view: the last steps (kFollowSteps) when the run has steps, else at the current zoom. Scrolling or
    // zooming away from the end stops following; coming back to the end resumes it.
    void documentGrew(const std::vector<TrackId>& grown, bool structureChanged);
    // Following a run with steps shows its last kFollowSteps steps and the one in progress.
    static constexpr size_t kFollowSteps = 3;

    // Right-click menus (timelinecontextmenu.cpp): the menu for a point of the viewport (slice,
    // track label, group header), parented to `parent`; null where there is nothing to offer.
    QMenu* contextMenuAt(const QPoint& pos, QWidget* parent);
    void setTrackHidden(TrackId track, bool hidden);
    void setTrackPinned(TrackId track, bool pinned);
    void showAllTracks();
    void setFollow(bool follow);
    bool follow() const { return m_follow; }

signals:
    void sliceSelected(ks::SliceRef slice); // invalid when cleared
    void rangeSelected(qint64 t0, qint64 t1, std::vector<ks::TrackId> tracks);
    void rangeCleared();
    void windowChanged();
    void matchChanged(int index, int total);
    void followChanged(bool follow);
    // From the context menu: search the timeline for a name; show a name in the operator table
    // (gpu: in the GPU kernels table).
    void findRequested(const QString& name);
    void showInTableRequested(const QString& name, bool gpu);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    enum class Drag { None, Pending, Pan, Range, RulerRange };

    TimelineCoords coords() const;
    void updateScrollBars();
    void updateSelectionLinks();
    void showTooltip(const QPoint& pos, const QPoint& globalPos);
    TimeNs anchorTime() const;
    void zoomAround(double factor, TimeNs anchor);
    void updateRangeFromDrag(const QPoint& pos);
    bool gotoMatch(int index);

    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const Highlight> m_highlight;
    TimelineRenderer m_renderer;
    TimelineState m_state;
    TimeWindow m_bounds;
    std::vector<TrackId> m_rangeTracks;
    int m_matchIndex = -1;
    bool m_follow = false;
    TimeWindow m_followWindow; // the last window following set (the view may end short of the bounds)

    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    TimeWindow m_pressWindow;
    int m_pressScroll = 0;
    bool m_updatingScrollBars = false;
    int64_t m_hScale = 1;

    QElapsedTimer m_frameWindow;
    double m_worstFrameMs = 0;
    int m_frames = 0;
};

} // namespace ks::ui
