#pragma once

#include "live/livesession.h"
#include "util/jobtracker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

class QDockWidget;

namespace ks::ui {

class LiveSessionPanel;
class MainWindow;
class TraceDocument;

// Resources for launched targets (set once by the application; found next to the executable
// otherwise).
void setLiveResources(const live::LiveResources& resources);
live::LiveResources liveResources();

// Runs one live session inside a main window: owns the session and the document whose trace it
// fills, adds the session panel as a dock, and refreshes the views at most 30 times a second:
// the LOD index of every track that grew (and only those), the timeline (follow mode), the step
// strip, the console and the counters. The analysis tables are recomputed in the background every
// few seconds and once more when the session ends.
class LiveController : public QObject {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 33;

    explicit LiveController(MainWindow* window);
    ~LiveController() override; // a running target is stopped (quickly) with the session

    bool launch(live::LaunchRequest request, QString& error);
    bool listen(QString& error);
    void stop();
    bool running() const;
    bool ended() const { return m_ended; }

    std::shared_ptr<TraceDocument> document() const { return m_doc; }
    LiveSessionPanel* panel() const { return m_panel; }
    const live::LiveSession* session() const { return m_session.get(); }
    QString title() const { return m_title; }

    // Writes everything received so far (pausing ingest while it writes); reports through saved().
    void save(const QString& path);
    bool isSaving() const { return m_saving; }

signals:
    void refreshed();
    void finished();
    void saved(const QString& path, const QString& error);

private:
    void begin();
    void tick();
    // LOD indexes of tracks that grew; true when rows must be rebuilt (new tracks, levels, counters).
    bool updateIndexes(std::vector<TrackId>& grown);
    void analyse(bool final);

    MainWindow* m_window;
    std::shared_ptr<TraceDocument> m_doc;
    std::shared_ptr<live::LiveSession> m_session; // shared with a save in progress
    QTimer m_timer;
    QDockWidget* m_dock = nullptr;
    LiveSessionPanel* m_panel = nullptr;
    QString m_title;
    JobTracker m_analysisJobs{this};
    JobTracker m_saveJobs{this};
    QElapsedTimer m_sinceAnalysis;
    uint64_t m_revision = 0;
    size_t m_analysedItems = 0;
    qint64 m_analysisMs = 0;
    std::vector<size_t> m_sizes;
    std::vector<TimeNs> m_maxTimes;
    std::vector<size_t> m_levels;
    std::vector<uint8_t> m_counterShown;
    bool m_ended = false;
    bool m_saving = false;
};

} // namespace ks::ui
