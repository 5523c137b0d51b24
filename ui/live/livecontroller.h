#pragma once

#include "core/live/livesession.h"
#include "ui/util/jobtracker.h"
#include "ui/util/metatypes.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <vector>

namespace ks::ui {

class LiveSessionPanel;
class TraceDocument;

// Resources for launched targets (set once by the application; found next to the executable
// otherwise).
void setLiveResources(const live::LiveResources& resources);
live::LiveResources liveResources();

// Runs one live session: owns the session, the document whose trace it fills and the session panel,
// and refreshes at most 30 times a second: the LOD index of every track that grew (and only those),
// the step strip, the console and the counters. The analyses are recomputed in the background every
// few seconds and once more when the session ends. It knows no window: whoever shows the session
// docks panel() and follows documentGrew() and analysed() (MainWindow, in mainwindowlive.cpp), so
// the live layer sits below the main window instead of reaching back into it.
class LiveController : public QObject {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 33;

    explicit LiveController(QObject* parent = nullptr);
    ~LiveController() override; // a running target is stopped (quickly) with the session

    bool launch(live::LaunchRequest request, QString& error);
    bool listen(QString& error);
    void stop();
    bool running() const;
    bool ended() const { return m_ended; }

    std::shared_ptr<TraceDocument> document() const { return m_doc; }
    // Created when the session starts, without a parent: the window that shows it takes it over.
    LiveSessionPanel* panel() const;
    const live::LiveSession* session() const { return m_session.get(); }
    QString title() const { return m_title; }

    // Writes everything received so far (pausing ingest while it writes); reports through saved().
    void save(const QString& path);

signals:
    // New events arrived: the LOD indexes of `grown` were updated; `structure` when rows must be
    // rebuilt (new tracks, deeper levels, new counters).
    void documentGrew(const std::vector<ks::TrackId>& grown, bool structure);
    // The background analyses were adopted into document(); `final` once the target has ended.
    void analysed(bool final);
    void refreshed();
    void finished();
    void saved(const QString& path, const QString& error);

private:
    void begin();
    void tick();
    // LOD indexes of tracks that grew; true when rows must be rebuilt (new tracks, levels, counters).
    bool updateIndexes(std::vector<TrackId>& grown);
    void analyse(bool final);

    std::shared_ptr<TraceDocument> m_doc;
    std::shared_ptr<live::LiveSession> m_session; // shared with a save in progress
    QTimer m_timer;
    QPointer<LiveSessionPanel> m_panel;
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
