#include "ui/panels/infopanel.h"

#include "ui/document/tracedocument.h"
#include "ui/panels/infohtml.h"
#include "ui/util/theme.h"

namespace ks::ui {

InfoPanel::InfoPanel(QWidget* parent) : QTextBrowser(parent)
{
    setFrameShape(QFrame::NoFrame);
    setOpenExternalLinks(false);
    connect(&Theme::instance(), &Theme::changed, this, [this] {
        m_dirty = true;
        if (isVisible()) render();
    });
}

void InfoPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_dirty = true;
    if (isVisible()) render();
}

void InfoPanel::showEvent(QShowEvent* e)
{
    if (m_dirty) render();
    QTextBrowser::showEvent(e);
}

void InfoPanel::render()
{
    m_dirty = false;
    if (m_doc)
        setHtml(traceInfoHtml(*m_doc));
    else
        clear();
}

} // namespace ks::ui
