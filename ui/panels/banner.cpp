#include "ui/panels/banner.h"

#include "ui/util/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace ks::ui {

Banner::Banner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("warningBanner"));
    followTheme(this, [](const Palette& p) {
        return QStringLiteral("#warningBanner{background:%1;border-bottom:1px solid %2;} QLabel{color:%3;}")
            .arg(p.bannerBackground.name(), p.bannerBorder.name(), p.bannerText.name());
    });
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 6, 4);
    auto* icon = new QLabel(QStringLiteral("⚠"), this);
    layout->addWidget(icon);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text, 1);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("Dismiss"));
    close->setAutoRaise(true);
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
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
    m_text->setText(text);
    setToolTip(messages.join(QStringLiteral("\n")));
    show();
}

} // namespace ks::ui
