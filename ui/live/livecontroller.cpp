#include "ui/live/livecontroller.h"

#include "core/io/tracewriter.h"
#include "core/live/launchenv.h"
#include "ui/document/tracedocument.h"
#include "ui/live/livesessionpanel.h"

#include <QFileInfo>
#include <mutex>

namespace ks::ui {

namespace {

constexpr qint64 kAnalysisMs = 2000;

live::LiveResources& resourcesSlot()
{
    static live::LiveResources r = live::findLiveResources({}, {});
    return r;
}

} // namespace

void setLiveResources(const live::LiveResources& resources)
{
    resourcesSlot() = resources;
}

live::LiveResources liveResources()
{
    return resourcesSlot();
}

LiveController::LiveController(QObject* parent) : QObject(parent)
{
    m_doc = std::make_shared<TraceDocument>();
    m_doc->trace = std::make_unique<Trace>();
    m_timer.setInterval(kRefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &LiveController::tick);
}

LiveController::~LiveController()
{
    m_timer.stop();
    m_analysisJobs.cancel();
    // The session (its thread writes into the document's trace) goes before the document.
    m_session.reset();
    // Nobody took the panel over (the session ended before a window docked it).
    if (m_panel && !m_panel->parent()) delete m_panel.data();
}

bool LiveController::launch(live::LaunchRequest request, QString& error)
{
    if (request.resources.library.empty() && request.resources.bootstrapDir.empty())
        request.resources = liveResources();
    const std::string program = live::programLabel(request.argv);
    m_title = QString::fromStdString(program);
    m_session = std::make_shared<live::LiveSession>(*m_doc->trace, program);
    std::string e;
    if (!m_session->launch(request, e)) {
        error = QString::fromStdString(e);
        m_session.reset();
        return false;
    }
    begin();
    return true;
}

bool LiveController::listen(QString& error)
{
    m_title = QStringLiteral("connections");
    m_session = std::make_shared<live::LiveSession>(*m_doc->trace, "live connections");
    std::string e;
    if (!m_session->listen(e)) {
        error = QString::fromStdString(e);
        m_session.reset();
        return false;
    }
    begin();
    return true;
}

void LiveController::begin()
{
    m_panel = new LiveSessionPanel;
    connect(m_panel, &LiveSessionPanel::stopRequested, this, &LiveController::stop);
    m_sinceAnalysis.start();
    m_panel->setStatus(m_session->status());
    m_timer.start();
}

LiveSessionPanel* LiveController::panel() const
{
    return m_panel;
}

bool LiveController::running() const
{
    return m_session && !m_session->finished();
}

void LiveController::stop()
{
    if (m_session) m_session->stop();
}

bool LiveController::updateIndexes(std::vector<TrackId>& grown)
{
    const Trace& t = *m_doc->trace;
    bool structure = false;
    const size_t n = t.trackCount();
    auto& lods = m_doc->lods;
    while (lods.size() < n) {
        lods.push_back(std::make_unique<SliceLod>(t.slices(TrackId(uint32_t(lods.size())))));
        m_sizes.push_back(0);
        m_maxTimes.push_back(std::numeric_limits<TimeNs>::min());
        m_levels.push_back(0);
    }
    for (size_t i = 0; i < n; ++i) {
        const SliceTrack& st = t.slices(TrackId(uint32_t(i)));
        const size_t size = st.size();
        const TimeNs maxTime = st.maxTime();
        if (size != m_sizes[i] || maxTime != m_maxTimes[i]) {
            if (m_sizes[i] == 0 && size > 0) structure = true; // a new row
            lods[i]->update();
            grown.push_back(TrackId(uint32_t(i)));
            m_sizes[i] = size;
            m_maxTimes[i] = maxTime;
        }
        const size_t levels = st.levelCount();
        if (levels != m_levels[i]) {
            m_levels[i] = levels;
            structure = true; // the row gets taller
        }
    }
    const size_t counters = t.counterCount();
    m_counterShown.resize(counters, 0);
    for (size_t i = 0; i < counters; ++i) {
        if (!m_counterShown[i] && t.counter(CounterTrackId(uint32_t(i))).size() > 0) {
            m_counterShown[i] = 1;
            structure = true;
        }
    }
    return structure;
}

void LiveController::tick()
{
    if (!m_session) return;
    m_panel->appendOutput(m_session->takeOutput());
    m_panel->addSteps(m_session->takeSteps());
    const live::SessionStatus status = m_session->status();
    m_panel->setStatus(status);
    const Trace& t = *m_doc->trace;
    if (t.revision() != m_revision) {
        m_revision = t.revision();
        std::vector<TrackId> grown;
        const bool structure = updateIndexes(grown);
        emit documentGrew(grown, structure);
    }
    if (status.ended() && !m_ended) {
        m_ended = true;
        m_timer.stop();
        analyse(true);
        return;
    }
    // Tables and memory rows follow every few seconds; a big trace's analysis may take a while, so
    // the pause is at least a few times what the last one took.
    const size_t slices = t.sliceCount() + t.memoryEvents().size();
    const qint64 pause = std::max<qint64>(kAnalysisMs, 4 * m_analysisMs);
    if (!m_analysisJobs.isRunning() && m_sinceAnalysis.elapsed() > pause && slices != m_analysedItems) {
        m_analysedItems = slices;
        analyse(false);
    }
    emit refreshed();
}

void LiveController::analyse(bool final)
{
    m_sinceAnalysis.restart();
    std::shared_ptr<TraceDocument> doc = m_doc;
    m_analysisJobs.startJob(
        [doc, final](const std::atomic<bool>& cancel) {
            QElapsedTimer timer;
            timer.start();
            DocumentAnalysis a = analyseTrace(*doc->trace, &cancel, final);
            return std::make_pair(std::move(a), timer.elapsed());
        },
        [this, final](std::pair<DocumentAnalysis, qint64> result) {
            m_analysisMs = result.second;
            m_doc->adopt(std::move(result.first));
            std::vector<TrackId> grown;
            updateIndexes(grown);
            // Memory counters are rebuilt with the analysis: the rows must follow.
            emit documentGrew(grown, true);
            emit analysed(final);
            if (final) {
                m_panel->setStatus(m_session->status());
                m_panel->appendOutput(m_session->takeOutput());
                m_panel->addSteps(m_session->takeSteps());
                emit finished();
            }
        });
}

void LiveController::save(const QString& path)
{
    if (m_saving) return;
    m_saving = true;
    if (m_panel) m_panel->setSaving(true);
    std::shared_ptr<TraceDocument> doc = m_doc;
    std::shared_ptr<live::LiveSession> session = m_session;
    const std::string file = path.toStdString();
    m_saveJobs.startJob(
        [doc, session, file](const std::atomic<bool>&) {
            // Ingest pauses while the file is written, so it holds one consistent moment.
            std::unique_lock<std::mutex> hold;
            if (session && !session->finished()) hold = session->holdIngest();
            return saveTraceFile(*doc->trace, file);
        },
        [this, path](SaveResult r) {
            m_saving = false;
            if (m_panel) m_panel->setSaving(false);
            emit saved(path, r.ok ? QString() : QString::fromStdString(r.error));
        });
}

} // namespace ks::ui
