#include "panels/detailspanel.h"

#include "document/tracedocument.h"
#include "panels/detailshtml.h"
#include "util/theme.h"

namespace ks::ui {

DetailsPanel::DetailsPanel(QWidget* parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setFrameShape(QFrame::NoFrame);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const SliceRef r = parseSliceLink(url.toString());
        if (r.valid()) emit sliceActivated(r);
    });
    showPlaceholder();
    connect(&Theme::instance(), &Theme::changed, this, [this] { showSlice(m_slice); });
}

void DetailsPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
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
    setHtml(sliceDetailsHtml(*m_doc, slice));
}

} // namespace ks::ui
