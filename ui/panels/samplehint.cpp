#include "ui/panels/samplehint.h"

#include "ui/util/theme.h"

#include <QFileInfo>
#include <QLabel>

namespace ks::ui {

namespace {

QString& samplePath()
{
    static QString path;
    return path;
}

} // namespace

SampleHint::SampleHint(QWidget* parent) : DismissibleStrip(QStringLiteral("sampleHint"), QString(), parent)
{
    label()->setTextFormat(Qt::RichText);
    label()->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(label(), &QLabel::linkActivated, this, &SampleHint::actionRequested);
    // The links take the palette's link colour, so the text is redone with the colours.
    followColors([this](const Palette& p) {
        label()->setText(
            QStringLiteral(
                "<b>This is a bundled sample</b>: Qwen1.5-0.5B inference on an H100, traced by PyTorch 2.6. "
                "Click a slice for its details; the Overview below explains the step time. "
                "Next: <a href='open' style='color:%1'>open your own trace</a> (Ctrl+O, or drop a file "
                "here), <a href='launch' style='color:%1'>launch a script to profile</a> (Ctrl+R), or "
                "<a href='compare' style='color:%1'>compare with another trace</a>.")
                .arg(p.link.name()));
        return Colors{p.header, p.border, p.text};
    });
}

void SampleHint::setSamplePath(const QString& path)
{
    samplePath() = path.isEmpty() ? QString() : QFileInfo(path).canonicalFilePath();
}

bool SampleHint::isSample(const QString& path)
{
    return !samplePath().isEmpty() && !path.isEmpty() && QFileInfo(path).canonicalFilePath() == samplePath();
}

} // namespace ks::ui
