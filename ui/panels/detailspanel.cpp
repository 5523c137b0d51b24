#include "ui/panels/detailspanel.h"

#include "core/analysis/timeline/etlinker.h"
#include "core/io/etreader.h"
#include "ui/document/tracedocument.h"
#include "ui/panels/detailshtml.h"
#include "ui/panels/etdetailshtml.h"
#include "ui/util/theme.h"

#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHelpEvent>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace ks::ui {

DetailsPanel::DetailsPanel(QWidget* parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setFrameShape(QFrame::NoFrame);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.toString() == QLatin1String("ks-et:attach")) {
            chooseExecutionTrace();
            return;
        }
        if (url.toString() == QLatin1String("ks-copy:name")) {
            QGuiApplication::clipboard()->setText(fullName());
            return;
        }
        if (url.toString() == QLatin1String("ks-name")) return;
        const SliceRef r = parseSliceLink(url.toString());
        if (r.valid()) emit sliceActivated(r);
    });
    showPlaceholder();
    connect(&Theme::instance(), &Theme::changed, this, [this] { showSlice(m_slice); });
}

void DetailsPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_et.reset();
    m_etLinks.reset();
    m_etStatus.clear();
    if (m_doc && m_doc->executionTrace) {
        m_et = m_doc->executionTrace;
        m_etLinks = m_doc->etLinks;
        m_etStatus = QStringLiteral("Execution trace %1 (found beside the trace): %2 of %3 ops linked.")
                         .arg(QFileInfo(m_doc->executionTracePath).fileName())
                         .arg(m_etLinks->linked())
                         .arg(m_etLinks->ops());
    }
    m_slice = {};
    showPlaceholder();
}

void DetailsPanel::showPlaceholder()
{
    setHtml(
        QStringLiteral("<p style='color:%1;font-size:12px;margin-top:12px'>Click a slice in the timeline to "
                       "see its arguments, self time and linked events.<br><br>Shift-drag over tracks to "
                       "aggregate a time range.</p>")
            .arg(Theme::palette().hintText.name()));
}

void DetailsPanel::showSlice(SliceRef slice)
{
    m_slice = slice;
    if (!m_doc || !slice.valid()) {
        showPlaceholder();
        return;
    }
    m_nameWidth = nameWidth();
    // setHtml() can show or hide the scroll bar, which resizes this widget from inside it; a
    // nested setHtml() then left both documents' text in the panel (the block shown twice).
    // resizeEvent() defers while this one is under way.
    const QScopedValueRollback<bool> rendering(m_rendering, true);
    QString html = sliceDetailsHtml(*m_doc, slice, m_nameWidth);
    const int64_t node = m_etLinks ? m_etLinks->nodeOf(slice) : -1;
    if (node >= 0) html += etDetailsHtml(*m_doc->trace, *m_et, *m_etLinks, uint32_t(node));
    html += QStringLiteral("<p style='color:%1;font-size:11px'>%2 <a href='ks-et:attach'>%3</a></p>")
                .arg(Theme::palette().hintText.name(), m_etStatus.toHtmlEscaped(),
                     m_et ? QStringLiteral("Attach another…") : QStringLiteral("Attach an execution trace…"));
    setHtml(html);
}

QString DetailsPanel::fullName() const
{
    return m_doc && m_slice.valid() ? displaySliceName(*m_doc, m_slice) : QString();
}

int DetailsPanel::nameWidth() const
{
    // Room for the " Copy" link and the document margins.
    return std::max(80, viewport()->width() - 56);
}

bool DetailsPanel::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QPoint pos = viewport()->mapFrom(this, help->pos());
        if (anchorAt(pos) == QLatin1String("ks-name")) {
            QToolTip::showText(help->globalPos(), fullName(), this);
            return true;
        }
        QToolTip::hideText();
    }
    return QTextBrowser::event(e);
}

void DetailsPanel::resizeEvent(QResizeEvent* e)
{
    QTextBrowser::resizeEvent(e);
    if (m_rendering) {
        QMetaObject::invokeMethod(this, &DetailsPanel::refitName, Qt::QueuedConnection);
        return;
    }
    refitName();
}

void DetailsPanel::refitName()
{
    // The name is elided to the width: redo it when the panel got wider or narrower.
    if (m_slice.valid() && nameWidth() != m_nameWidth) {
        const int scroll = verticalScrollBar()->value();
        showSlice(m_slice);
        verticalScrollBar()->setValue(scroll);
    }
}

bool DetailsPanel::attachExecutionTrace(const QString& path, QString* error)
{
    if (!m_doc) return false;
    const EtLoadResult r = readExecutionTraceFile(path.toStdString());
    const QString name = QFileInfo(path).fileName();
    if (!r.ok()) {
        m_etStatus = name + QStringLiteral(": ") + QString::fromStdString(r.error);
        if (error) *error = m_etStatus;
        showSlice(m_slice);
        return false;
    }
    auto links = std::make_shared<EtLinks>(EtLinks::link(*m_doc->trace, *r.trace));
    m_etStatus = QStringLiteral("Execution trace %1: %2 of %3 ops linked%4.")
                     .arg(name)
                     .arg(links->linked())
                     .arg(links->ops())
                     .arg(r.warnings.empty() ? QString()
                                             : QStringLiteral(" (") + QString::fromStdString(r.warnings[0]) +
                                                   QLatin1Char(')'));
    m_et = r.trace;
    m_etLinks = std::move(links);
    showSlice(m_slice);
    return true;
}

void DetailsPanel::chooseExecutionTrace()
{
    const QString f =
        QFileDialog::getOpenFileName(this, QStringLiteral("Attach execution trace"), QString(),
                                     QStringLiteral("Execution traces (*.json *.json.gz);;All files (*)"));
    if (!f.isEmpty()) attachExecutionTrace(f);
}

} // namespace ks::ui
