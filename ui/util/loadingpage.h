#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;

namespace ks::ui {

// The page a window shows while its input loads: a status line, a progress bar and Cancel,
// centred. The snapshot and job windows each had their own copy of it.
class LoadingPage : public QWidget {
    Q_OBJECT
public:
    explicit LoadingPage(QWidget* parent = nullptr);

    QLabel* status() const { return m_status; }
    QProgressBar* progress() const { return m_progress; }

signals:
    void cancelRequested();

private:
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
};

} // namespace ks::ui
