#include "ui/live/livesessionpanel.h"

#include "ui/live/consolepane.h"
#include "ui/live/stepstrip.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks::ui {

LiveSessionPanel::LiveSessionPanel(QWidget* parent) : QWidget(parent)
{
    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 4, 6, 2);
    m_state = new QLabel(this);
    m_state->setTextFormat(Qt::RichText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_dropped = new QLabel(this);
    followTheme(m_dropped, [](const Palette& p) {
        return QStringLiteral("color: %1; font-weight: bold").arg(p.error.name());
    });
    m_dropped->hide();
    m_follow = new QToolButton(this);
    m_follow->setText(QStringLiteral("Follow"));
    m_follow->setCheckable(true);
    m_follow->setToolTip(QStringLiteral("Keep the newest data in view (scrolling back turns this off)"));
    m_stop = new QPushButton(QStringLiteral("Stop"), this);
    m_stop->setToolTip(QStringLiteral("End the program: SIGINT, then SIGTERM, then SIGKILL"));
    m_save = new QPushButton(QStringLiteral("Save…"), this);
    m_save->setToolTip(QStringLiteral("Write everything received so far as a .pt.trace.json(.gz)"));
    top->addWidget(m_state, 1);
    top->addWidget(m_dropped);
    top->addWidget(m_follow);
    top->addWidget(m_stop);
    top->addWidget(m_save);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_steps = new StepStrip(split);
    m_console = new ConsolePane(split);
    split->addWidget(m_steps);
    split->addWidget(m_console);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({100, 300});

    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    v->addLayout(top);
    v->addWidget(split, 1);

    connect(m_stop, &QPushButton::clicked, this, &LiveSessionPanel::stopRequested);
    connect(m_save, &QPushButton::clicked, this, &LiveSessionPanel::saveRequested);
    connect(m_follow, &QToolButton::toggled, this, &LiveSessionPanel::followToggled);
    connect(m_steps, &StepStrip::stepActivated, this, &LiveSessionPanel::stepActivated);
}

void LiveSessionPanel::setStatus(const live::SessionStatus& s)
{
    QString state;
    const Palette& pal = Theme::palette();
    QColor colour = pal.success;
    switch (s.state) {
    case live::SessionStatus::State::Idle:
        state = QStringLiteral("not started");
        colour = pal.mutedText;
        break;
    case live::SessionStatus::State::Running:
        state = s.listening ? QStringLiteral("listening") : QStringLiteral("running");
        break;
    case live::SessionStatus::State::Stopping:
        state = QStringLiteral("stopping");
        colour = pal.warning;
        break;
    case live::SessionStatus::State::Ended:
        state = QStringLiteral("ended");
        colour = pal.mutedText;
        break;
    }
    QString text = QStringLiteral("<b style='color:%1'>● %2</b>").arg(colour.name(), state);
    if (s.pid > 0) text += QStringLiteral(" &nbsp;pid %1").arg(s.pid);
    text += QStringLiteral(" &nbsp;·&nbsp; %1 events · %2 steps")
                .arg(formatCount(s.counters.events + s.counters.windowEvents), formatCount(s.counters.steps));
    if (s.counters.windows) text += QStringLiteral(" · %1 windows").arg(formatCount(s.counters.windows));
    text += QStringLiteral(" · %1 received").arg(formatBytes(double(s.bytes)));
    if (!s.exit.empty())
        text +=
            QStringLiteral(" &nbsp;·&nbsp; target %1").arg(QString::fromStdString(s.exit).toHtmlEscaped());
    if (!s.error.empty())
        text += QStringLiteral("<br><span style='color:%1'>%2</span>")
                    .arg(pal.error.name(), QString::fromStdString(s.error).toHtmlEscaped());
    m_state->setText(text);
    m_state->setToolTip(
        QString::fromStdString(s.endpoint.empty() ? s.summary() : s.summary() + "\n" + s.endpoint));
    const uint64_t dropped = s.counters.senderDropped + s.counters.overBudget;
    if (dropped > 0) {
        m_dropped->setText(QStringLiteral("%1 dropped").arg(formatCount(dropped)));
        m_dropped->setToolTip(
            QStringLiteral("%1 events dropped by the target (the viewer fell behind), %2 over the "
                           "session's memory budget, %3 gaps")
                .arg(formatCount(s.counters.senderDropped), formatCount(s.counters.overBudget),
                     formatCount(s.counters.gaps)));
        m_dropped->show();
    } else {
        m_dropped->hide();
    }
    m_stop->setEnabled(s.state == live::SessionStatus::State::Running);
}

void LiveSessionPanel::appendOutput(const std::vector<live::OutputLine>& lines)
{
    m_console->append(lines);
}

void LiveSessionPanel::addSteps(const std::vector<live::StepArrival>& steps)
{
    m_steps->addSteps(steps);
}

void LiveSessionPanel::setFollow(bool follow)
{
    const QSignalBlocker block(m_follow);
    m_follow->setChecked(follow);
}

void LiveSessionPanel::setSaving(bool saving)
{
    m_save->setEnabled(!saving);
    m_save->setText(saving ? QStringLiteral("Saving…") : QStringLiteral("Save…"));
}

QString LiveSessionPanel::statusText() const
{
    return m_state->text();
}

QString LiveSessionPanel::droppedText() const
{
    return m_dropped->isVisible() ? m_dropped->text() : QString();
}

} // namespace ks::ui
