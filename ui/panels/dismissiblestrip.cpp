#include "ui/panels/dismissiblestrip.h"

#include "ui/util/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace ks::ui {

DismissibleStrip::DismissibleStrip(const QString& name, const QString& icon, QWidget* parent) : QFrame(parent)
{
    setObjectName(name);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 6, 4);
    if (!icon.isEmpty()) layout->addWidget(new QLabel(icon, this));
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    layout->addWidget(m_text, 1);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("Dismiss"));
    close->setAutoRaise(true);
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

QString DismissibleStrip::text() const
{
    return m_text->text();
}

void DismissibleStrip::followColors(std::function<Colors(const Palette&)> colors)
{
    followTheme(this, [this, colors = std::move(colors)](const Palette& p) {
        const Colors c = colors(p);
        return QStringLiteral("#%1{background:%2;border-bottom:1px solid %3;} QLabel{color:%4;}")
            .arg(objectName(), c.background.name(), c.border.name(), c.text.name());
    });
}

} // namespace ks::ui
