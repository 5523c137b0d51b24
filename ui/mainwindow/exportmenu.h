#pragma once

#include "ui/mainwindow/exporter.h"
#include "ui/util/jobtracker.h"

#include <QMenu>
#include <atomic>
#include <memory>

class QProgressDialog;
class QTimer;

namespace ks::ui {

class MainWindow;

// File > Export: every export the command line has (exporter.h). An action asks for the target,
// then the export runs on the thread pool behind a progress dialog with Cancel; the file is written
// atomically, so a cancelled or failed export leaves an existing file as it was.
class ExportMenu : public QMenu {
    Q_OBJECT
public:
    explicit ExportMenu(MainWindow* window);

    QAction* action(ExportFormat format) const;
    // Exports the window's document to path without asking (the actions ask for path first).
    void exportTo(ExportFormat format, const QString& path);
    bool isRunning() const { return m_jobs.isRunning(); }
    void cancel();

signals:
    // error is empty on success, "cancelled" after Cancel.
    void finished(const QString& path, const QString& error);

private:
    void ask(ExportFormat format);
    void updateActions();
    void done(const QString& path, const ExportOutcome& outcome);

    MainWindow* m_window;
    JobTracker m_jobs{this};
    QProgressDialog* m_progress = nullptr;
    QTimer* m_poll;
    std::shared_ptr<std::atomic<int>> m_permille; // -1 while the writer has not said
    QString m_path;
};

} // namespace ks::ui
