#pragma once

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QThreadPool>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace ks::ui {

// A job's thread gives way to the GUI thread when every core is busy: at the end of a load the
// Overview's and the operator summary's jobs took both cores of a 2-core machine, and the GUI
// thread's 25 ms of work took 50-60 ms of wall time waiting for one (bench_guiload). Five nice
// levels (about a third of the GUI thread's weight under Linux's scheduler), so jobs still run at
// full speed on an idle core and are not starved by other programs. Once per pool thread
// (jobtracker.cpp).
void lowerJobThreadPriority();

// The threads background jobs run on. Not the global pool: Qt's raster paint engine and the
// timeline's per-frame track queries use that one and wait for its threads, so long jobs holding
// all of them (a load ends by starting the Overview and the operator summary) stalled every frame
// for as long (issue 30, item 11). Never destroyed: jobs may still run while statics go.
inline QThreadPool& jobPool()
{
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool();
        p->setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
        return p;
    }();
    return *pool;
}

// Runs one background job at a time for a context object (hotspot's JobTracker idiom). Starting a
// job cancels the previous one; a result reaches the context only if the context still exists and
// no newer job was started since. The job receives a cancel flag to poll.
class JobTracker {
public:
    explicit JobTracker(QObject* context) : m_context(context) {}
    ~JobTracker() { cancel(); }
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    // job(const std::atomic<bool>& cancelled) -> Result runs on the thread pool;
    // then(Result) runs on the context's (GUI) thread.
    template <typename Job, typename Then>
    void startJob(Job job, Then then)
    {
        cancel();
        auto token = std::make_shared<std::atomic<bool>>(false);
        m_token = token;
        const uint64_t id = ++m_generation;
        m_running = true;
        QPointer<QObject> context(m_context);
        JobTracker* self = this;
        jobPool().start([token, id, context, self, job = std::move(job), then = std::move(then)]() mutable {
            lowerJobThreadPriority();
            using Result = decltype(job(*token));
            auto result = std::make_shared<Result>(job(*token));
            if (token->load()) return;
            // Delivered through the application object, which outlives every window; the context is
            // checked on the GUI thread where it can no longer be deleted under our feet.
            QMetaObject::invokeMethod(
                qApp,
                [token, id, context, self, result, then = std::move(then)]() mutable {
                    if (!context || token->load() || self->m_generation != id) return;
                    self->m_running = false;
                    then(std::move(*result));
                },
                Qt::QueuedConnection);
        });
    }

    void cancel()
    {
        if (m_token) m_token->store(true);
        m_token.reset();
        m_running = false;
    }

    bool isRunning() const { return m_running; }

private:
    QObject* m_context;
    std::shared_ptr<std::atomic<bool>> m_token;
    uint64_t m_generation = 0;
    bool m_running = false;
};

} // namespace ks::ui
