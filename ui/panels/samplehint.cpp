#include "ui/panels/samplehint.h"

#include "ui/util/theme.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace ks::ui {

namespace {

QString& samplePath()
{
    static QString path;
    return path;
}

} // namespace

SampleHint::SampleHint(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("sampleHint"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 6, 4);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    layout->addWidget(m_text, 1);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("Dismiss"));
    close->setAutoRaise(true);
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    connect(m_text, &QLabel::linkActivated, this, &SampleHint::actionRequested);
    followTheme(this, [this](const Palette& p) {
        m_text->setText(
            QStringLiteral(
                "<b>This is a bundled sample</b>: Qwen1.5-0.5B inference on an H100, traced by PyTorch 2.6. "
                "Click a slice for its details; the Overview below explains the step time. "
                "Next: <a href='open' style='color:%1'>open your own trace</a> (Ctrl+O, or drop a file "
                "here), <a href='launch' style='color:%1'>launch a script to profile</a> (Ctrl+R), or "
                "<a href='compare' style='color:%1'>compare with another trace</a>.")
                .arg(p.link.name()));
        return QStringLiteral("#sampleHint{background:%1;border-bottom:1px solid %2;} QLabel{color:%3;}")
            .arg(p.header.name(), p.border.name(), p.text.name());
    });
    hide();
}

void SampleHint::setSamplePath(const QString& path)
{
    samplePath() = path.isEmpty() ? QString() : QFileInfo(path).canonicalFilePath();
}

bool SampleHint::isSample(const QString& path)
{
    return !samplePath().isEmpty() && !path.isEmpty() && QFileInfo(path).canonicalFilePath() == samplePath();
}

QString SampleHint::text() const
{
    return m_text->text();
}

} // namespace ks::ui
