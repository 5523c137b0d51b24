#pragma once

#include "core/live/livesession.h"

#include <QPlainTextEdit>
#include <vector>

namespace ks::ui {

// The launched program's output as it arrives, with what the bootstrap and the session report in
// between (in colour). Keeps the newest lines only, and stays at the bottom unless the user
// scrolled up to read.
class ConsolePane : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit ConsolePane(QWidget* parent = nullptr);

    void append(const std::vector<live::OutputLine>& lines);
    // Plain text of what is shown (tests).
    QString text() const { return toPlainText(); }
};

} // namespace ks::ui
