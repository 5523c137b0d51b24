#include "panels/infopanel.h"

#include "document/tracedocument.h"
#include "panels/infohtml.h"

namespace ks::ui {

InfoPanel::InfoPanel(QWidget* parent) : QTextBrowser(parent)
{
    setFrameShape(QFrame::NoFrame);
    setOpenExternalLinks(false);
}

void InfoPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    if (doc)
        setHtml(traceInfoHtml(*doc));
    else
        clear();
}

} // namespace ks::ui
