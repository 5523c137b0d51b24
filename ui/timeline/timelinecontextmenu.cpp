// TimelineView's right-click menus: on a slice (copy, find all, zoom, show in a table) and on a
// track (hide, pin, copy its name), plus bringing hidden tracks back.

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinehittest.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/trackmemory.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFontMetrics>
#include <QMenu>

namespace ks::ui {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Menu text of a name: middle-elided, and '&' kept literal.
QString menuText(const QMenu* menu, const QString& name)
{
    QString s = QFontMetrics(menu->font()).elidedText(name, Qt::ElideMiddle, 360);
    return s.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

} // namespace

void TimelineView::contextMenuEvent(QContextMenuEvent* e)
{
    QMenu* menu = contextMenuAt(e->pos(), this);
    if (!menu) return;
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(e->globalPos());
    e->accept();
}

QMenu* TimelineView::contextMenuAt(const QPoint& pos, QWidget* parent)
{
    if (!m_doc) return nullptr;
    const TimelineHit hit = hitTest(m_renderer, coords(), pos);
    TrackLayout& layout = m_renderer.layout();
    auto* menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("timelineContextMenu"));
    const Trace& t = *m_doc->trace;

    if (hit.kind == TimelineHit::Kind::Slice && hit.slice.valid()) {
        const SliceRef ref = hit.slice;
        const QString name = qstr(t.str(t.slices(ref.track).name(ref.index)));
        const bool gpu = t.track(ref.track).kind == TrackKind::GpuStream;
        menu->addSection(menuText(menu, name));
        menu->addAction(QStringLiteral("&Copy Name"), this,
                        [name] { QApplication::clipboard()->setText(name); })
            ->setObjectName(QStringLiteral("copyName"));
        menu->addAction(QStringLiteral("&Find All"), this, [this, name] { emit findRequested(name); })
            ->setObjectName(QStringLiteral("findAll"));
        menu->addAction(QStringLiteral("&Zoom to Slice"), this,
                        [this, ref] {
                            selectSlice(ref, false);
                            zoomToSlice(ref);
                        })
            ->setObjectName(QStringLiteral("zoomTo"));
        // Python frames and the profiler's own span have no row in torch's operator table.
        const std::string_view cat = t.str(t.slices(ref.track).category(ref.index));
        if (gpu || (cat != "python_function" && cat != "Trace"))
            menu->addAction(gpu ? QStringLiteral("Show in &GPU Kernels Table")
                                : QStringLiteral("Show in &Operator Table"),
                            this, [this, name, gpu] { emit showInTableRequested(name, gpu); })
                ->setObjectName(QStringLiteral("showInTable"));
    }

    const bool onTrack = hit.kind == TimelineHit::Kind::Slice || hit.kind == TimelineHit::Kind::Track ||
                         hit.kind == TimelineHit::Kind::Label;
    if (onTrack && hit.row >= 0) {
        const TrackLayout::Row& row = layout.rows()[size_t(hit.row)];
        if (row.kind == TrackLayout::RowKind::Slices) {
            const TrackId track = row.track;
            const QString label = row.label;
            menu->addSection(menuText(menu, label));
            menu->addAction(QStringLiteral("&Hide Track"), this,
                            [this, track] { setTrackHidden(track, true); })
                ->setObjectName(QStringLiteral("hideTrack"));
            const bool pinned = layout.isTrackPinned(track);
            menu->addAction(pinned ? QStringLiteral("&Unpin Track") : QStringLiteral("&Pin Track to Top"),
                            this, [this, track, pinned] { setTrackPinned(track, !pinned); })
                ->setObjectName(QStringLiteral("pinTrack"));
            menu->addAction(QStringLiteral("Copy &Track Name"), this,
                            [label] { QApplication::clipboard()->setText(label); })
                ->setObjectName(QStringLiteral("copyTrackName"));
        }
    }
    if (hit.kind == TimelineHit::Kind::GroupHeader && hit.group >= 0) {
        const TrackLayout::Group& g = layout.groups()[size_t(hit.group)];
        const int group = hit.group;
        const bool collapsed = g.collapsed;
        menu->addSection(menuText(menu, g.title));
        menu->addAction(collapsed ? QStringLiteral("&Expand Group") : QStringLiteral("&Collapse Group"), this,
                        [this, group, collapsed] { setGroupCollapsed(group, !collapsed); })
            ->setObjectName(QStringLiteral("collapseGroup"));
    }
    if (layout.hiddenTrackCount() > 0) {
        menu->addSeparator();
        const int n = layout.hiddenTrackCount();
        menu->addAction(n == 1 ? QStringLiteral("&Show 1 Hidden Track")
                               : QStringLiteral("&Show %1 Hidden Tracks").arg(n),
                        this, &TimelineView::showAllTracks)
            ->setObjectName(QStringLiteral("showHidden"));
    }
    if (menu->actions().isEmpty()) {
        delete menu;
        return nullptr;
    }
    return menu;
}

void TimelineView::setTrackHidden(TrackId track, bool hidden)
{
    if (!m_doc) return;
    m_renderer.layout().setTrackHidden(track, hidden);
    TrackMemory::setHidden(*m_doc->trace, track, hidden);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::showAllTracks()
{
    if (!m_doc) return;
    m_renderer.layout().showAllTracks();
    TrackMemory::showAll(*m_doc->trace);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setTrackPinned(TrackId track, bool pinned)
{
    if (!m_doc) return;
    m_renderer.layout().setTrackPinned(track, pinned);
    TrackMemory::setPinned(*m_doc->trace, track, pinned);
    m_renderer.rebuildLayout();
    updateScrollBars();
    viewport()->update();
}

} // namespace ks::ui
