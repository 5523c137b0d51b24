#include "ui/live/consolepane.h"

#include "ui/util/theme.h"

#include <QFontDatabase>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

namespace ks::ui {

namespace {

constexpr int kMaxLines = 20000;

} // namespace

ConsolePane::ConsolePane(QWidget* parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setMaximumBlockCount(kMaxLines);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    f.setPixelSize(11);
    setFont(f);
    setPlaceholderText(QStringLiteral("The program's output appears here."));
}

void ConsolePane::append(const std::vector<live::OutputLine>& lines)
{
    if (lines.empty()) return;
    QScrollBar* bar = verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum() - 2;
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    c.beginEditBlock();
    QTextCharFormat plain, err, note, target, warn;
    const Palette& pal = Theme::palette();
    plain.setForeground(pal.text);
    err.setForeground(pal.error);
    note.setForeground(pal.mutedText);
    target.setForeground(pal.link);
    warn.setForeground(pal.warning);
    bool first = document()->isEmpty();
    // Lines beyond the limit would be dropped at once: do not lay them out.
    const size_t start = lines.size() > size_t(kMaxLines) ? lines.size() - size_t(kMaxLines) : 0;
    for (size_t i = start; i < lines.size(); ++i) {
        const live::OutputLine& l = lines[i];
        if (!first) c.insertBlock();
        first = false;
        QString text = QString::fromUtf8(l.text.data(), qsizetype(l.text.size()));
        QTextCharFormat fmt = plain;
        switch (l.source) {
        case live::OutputLine::Source::Stdout:
            break;
        case live::OutputLine::Source::Stderr:
            fmt = err;
            break;
        case live::OutputLine::Source::Target:
            fmt = target;
            text = QStringLiteral("[kinetoscope · pid %1] ").arg(l.pid) + text;
            break;
        case live::OutputLine::Source::Session:
            fmt = note;
            text = QStringLiteral("— ") + text;
            break;
        }
        if (l.level == live::LogLevel::Warning) fmt = warn;
        if (l.level == live::LogLevel::Error) fmt = err;
        c.insertText(text, fmt);
    }
    c.endEditBlock();
    if (atBottom) bar->setValue(bar->maximum());
}

} // namespace ks::ui
