#pragma once

#include "core/analysis/calltree/calltree.h"
#include "ui/util/jobtracker.h"

#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>
#include <utility>

namespace ks::ui {

class TraceDocument;

// The call tree of a document. growing: a live session's document, whose link index the GUI thread
// replaces whenever the session's analyses are adopted; the build then links the trace itself (as
// the Overview's does) instead of reading doc.links while it may change.
CallTree buildDocumentCallTree(const TraceDocument& doc, CallTreeOptions options, bool growing);

// A view's call-tree builds, off the GUI thread (issue 28): at most one runs per view; a newer
// request (another range, merge mode or document) cancels the running one, whose result is then
// dropped (JobTracker), so a superseded build never overwrites a newer one. The job holds the
// document (shared_ptr), so closing the trace meanwhile is safe. Its progress is polled ten times a
// second into progressed() (the way the export dialog polls its job).
class CallTreeJob : public QObject {
    Q_OBJECT
public:
    explicit CallTreeJob(QObject* parent = nullptr);

    // post(CallTree&&) runs on the worker after the build (ModuleView builds its module tree
    // there), then(result) on the GUI thread when this is still the newest request.
    template <typename Post, typename Then>
    void start(std::shared_ptr<const TraceDocument> doc, CallTreeOptions options, bool growing, Post post,
               Then then)
    {
        auto permille = std::make_shared<std::atomic<int>>(0);
        m_permille = permille;
        m_poll.start();
        m_jobs.startJob(
            [doc = std::move(doc), options = std::move(options), growing, permille,
             post = std::move(post)](const std::atomic<bool>& cancel) mutable {
                options.cancel = &cancel;
                options.progress = [permille](double f) {
                    permille->store(int(f * 1000), std::memory_order_relaxed);
                };
                return post(buildDocumentCallTree(*doc, std::move(options), growing));
            },
            [this, then = std::move(then)](auto result) mutable {
                finish();
                then(std::move(result));
            });
        emit progressed(0);
    }
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    // The running build's progress in per mille, -1 when none runs.
    int permille() const;

signals:
    void progressed(int permille);

private:
    void finish();

    JobTracker m_jobs{this};
    std::shared_ptr<std::atomic<int>> m_permille;
    QTimer m_poll;
};

} // namespace ks::ui
