#include "ui/panels/banner.h"

#include "ui/util/theme.h"

#include <QLabel>

namespace ks::ui {

Banner::Banner(QWidget* parent)
    : DismissibleStrip(QStringLiteral("warningBanner"), QStringLiteral("⚠"), parent)
{
    label()->setTextInteractionFlags(Qt::TextSelectableByMouse);
    followColors([](const Palette& p) { return Colors{p.bannerBackground, p.bannerBorder, p.bannerText}; });
}

void Banner::showMessages(const QStringList& messages)
{
    if (messages.isEmpty()) {
        hide();
        return;
    }
    QStringList shown = messages.mid(0, 3);
    QString text = shown.join(QStringLiteral("\n"));
    if (messages.size() > 3)
        text += QStringLiteral("\n… and %1 more (see Trace info)").arg(messages.size() - 3);
    label()->setText(text);
    setToolTip(messages.join(QStringLiteral("\n")));
    show();
}

} // namespace ks::ui
