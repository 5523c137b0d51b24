#pragma once

#include "core/model/types.h"

#include <QColor>
#include <QWidget>
#include <vector>

namespace ks::ui {

class TimelineView;

// Marks slices of a timeline (inserted, removed, slower ops of a comparison) without touching the
// renderer: a transparent widget over the view's viewport that outlines each marked slice where
// the renderer draws it, repainted whenever the view's window moves.
class DiffOverlay : public QWidget {
    Q_OBJECT
public:
    struct Mark {
        SliceRef slice;
        QColor color;
    };
    explicit DiffOverlay(TimelineView* view);
    void setMarks(std::vector<Mark> marks);
    size_t markCount() const { return m_marks.size(); }

protected:
    void paintEvent(QPaintEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    TimelineView* m_view;
    std::vector<Mark> m_marks;
};

} // namespace ks::ui
