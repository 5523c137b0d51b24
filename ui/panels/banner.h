#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;

namespace ks::ui {

// A dismissible strip above the timeline for reader warnings.
class Banner : public QFrame {
    Q_OBJECT
public:
    explicit Banner(QWidget* parent = nullptr);
    void showMessages(const QStringList& messages);

private:
    QLabel* m_text;
};

} // namespace ks::ui
