#include "ui/document/documentloader.h"

#include <QLoggingCategory>

namespace ks::ui {

Q_LOGGING_CATEGORY(lcLoad, "kinetoscope.load", QtInfoMsg)

DocumentLoader::DocumentLoader(QObject* parent) : QObject(parent)
{
    m_poll.setInterval(33);
    connect(&m_poll, &QTimer::timeout, this, &DocumentLoader::poll);
}

DocumentLoader::~DocumentLoader()
{
    m_jobs.cancel();
}

void DocumentLoader::start(const QString& path)
{
    m_path = path;
    m_loading = true;
    m_progress = std::make_shared<Progress>();
    auto prog = m_progress;
    m_poll.start();
    m_jobs.startJob(
        [path, prog](const std::atomic<bool>& cancel) {
            return loadDocument(path, cancel, [prog](uint64_t done, uint64_t total) {
                prog->done.store(done, std::memory_order_relaxed);
                prog->total.store(total, std::memory_order_relaxed);
            });
        },
        [this](DocumentLoad result) {
            m_loading = false;
            m_poll.stop();
            if (result.cancelled) {
                emit cancelled();
                return;
            }
            if (!result.document) {
                emit failed(m_path, result.error);
                return;
            }
            const TraceDocument& d = *result.document;
            qCInfo(lcLoad, "loaded %s: %.1f MB in %.3f s (%.1f MB/s), analyses %.3f s", qPrintable(m_path),
                   double(d.loadStats.jsonBytes) / 1e6, d.loadSeconds,
                   d.loadSeconds > 0 ? double(d.loadStats.jsonBytes) / 1e6 / d.loadSeconds : 0.0,
                   d.analysisSeconds);
            emit loaded(result.document);
        });
}

void DocumentLoader::cancel()
{
    if (!m_loading) return;
    m_jobs.cancel();
    m_loading = false;
    m_poll.stop();
    emit cancelled();
}

void DocumentLoader::poll()
{
    if (m_progress) emit progress(qint64(m_progress->done.load()), qint64(m_progress->total.load()));
}

} // namespace ks::ui
