#pragma once

#include "ui/document/tracedocument.h"
#include "ui/util/jobtracker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>

namespace ks::ui {

// Loads one trace file in the background. Progress is published by the reader thread into atomics
// and polled here by a timer, so a fast reader cannot flood the GUI thread with events.
class DocumentLoader : public QObject {
    Q_OBJECT
public:
    explicit DocumentLoader(QObject* parent = nullptr);
    ~DocumentLoader() override;

    void start(const QString& path);
    void cancel();
    bool isLoading() const { return m_loading; }
    QString path() const { return m_path; }

signals:
    void progress(qint64 bytesDone, qint64 bytesTotal);
    void loaded(std::shared_ptr<ks::ui::TraceDocument> document);
    void failed(const QString& path, const QString& error);
    void cancelled();

private:
    struct Progress {
        std::atomic<uint64_t> done{0};
        std::atomic<uint64_t> total{0};
    };
    void poll();

    JobTracker m_jobs{this};
    QTimer m_poll;
    std::shared_ptr<Progress> m_progress;
    QString m_path;
    bool m_loading = false;
};

} // namespace ks::ui
