#pragma once

#include "core/analysis/ranks/jobsummary.h"
#include "ui/util/jobtracker.h"

#include <QMainWindow>
#include <memory>

class QLabel;
class QProgressBar;
class QStackedWidget;

namespace ks::ui {

class RankOverview;

// A window for a distributed job: a directory of rank traces or a .kjob file. Ranks are analysed
// off the GUI thread, a few at a time (each trace is dropped once summarized), then the Rank
// overview shows; asking for a rank at a step opens that rank's trace in a MainWindow there.
class RankJobWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit RankJobWindow(QWidget* parent = nullptr);
    ~RankJobWindow() override;

    // A directory of rank traces, or a .kjob file.
    void openJob(const QString& path);
    // Whether openPath should show this path as a job: a .kjob, or a directory of several ranks.
    static bool isJobPath(const QString& path);

    RankOverview* overview() const { return m_overview; }
    bool isLoading() const { return m_jobs.isRunning(); }
    // Opens the rank's trace in a new MainWindow, scrolled to the step.
    void openRank(const QString& path, qint64 rank, qint64 step);

signals:
    void jobLoaded();
    void loadFailed(const QString& error);
    // A rank window was opened (tests).
    void rankOpened(QMainWindow* window);

private:
    void progress(size_t done, size_t total, const QString& file, bool failed);

    JobTracker m_jobs{this};
    QString m_path;
    QStackedWidget* m_stack;
    QLabel* m_status;
    QProgressBar* m_progress;
    RankOverview* m_overview;
};

} // namespace ks::ui
