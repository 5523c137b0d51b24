#include "ui/ranks/rankjobwindow.h"

#include "core/analysis/ranks/jobrunner.h"
#include "core/analysis/ranks/kjob.h"
#include "core/io/jobfiles.h"
#include "core/io/tracereader.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/ranks/rankoverview.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/loadingpage.h"

#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QStackedWidget>

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

struct Loaded {
    std::shared_ptr<JobSummary> job;
    QString error;
};

LoadedRank loadRank(const std::string& path, unsigned threads)
{
    LoadOptions o;
    o.threads = threads;
    LoadResult r = loadTraceFile(path, o);
    return LoadedRank{std::move(r.trace), r.error, std::move(r.warnings)};
}

} // namespace

RankJobWindow::RankJobWindow(QWidget* parent) : QMainWindow(parent)
{
    setAttribute(Qt::WA_DeleteOnClose);
    resize(1400, 860);
    m_stack = new QStackedWidget(this);
    auto* loading = new LoadingPage(m_stack);
    m_status = loading->status();
    m_progress = loading->progress();
    connect(loading, &LoadingPage::cancelRequested, this, &QWidget::close);
    m_overview = new RankOverview(m_stack);
    m_stack->addWidget(loading);
    m_stack->addWidget(m_overview);
    setCentralWidget(m_stack);
    connect(m_overview, &RankOverview::openRank, this, &RankJobWindow::openRank);
}

RankJobWindow::~RankJobWindow() = default;

bool RankJobWindow::isJobPath(const QString& path)
{
    const QFileInfo fi(path);
    if (fi.isFile()) return fi.suffix() == u"kjob"_s;
    return fi.isDir() && looksLikeJobDirectory(fi.absoluteFilePath().toStdString());
}

void RankJobWindow::openJob(const QString& path)
{
    m_path = QFileInfo(path).absoluteFilePath();
    setWindowTitle(QFileInfo(path).fileName() + u" – ranks – Kinetoscope"_s);
    m_stack->setCurrentIndex(0);
    m_status->setText(u"Analysing the ranks of %1…"_s.arg(m_path));
    m_progress->setRange(0, 0);
    QPointer<RankJobWindow> self(this);
    const std::string p = m_path.toStdString();
    const bool kjob = m_path.endsWith(u".kjob"_s);
    m_jobs.startJob(
        [p, kjob, self](const std::atomic<bool>& cancelled) {
            Loaded out;
            out.job = std::make_shared<JobSummary>();
            std::string error;
            if (kjob) {
                if (!readJobFile(p, *out.job, error)) out.error = QString::fromStdString(error);
                return out;
            }
            const JobFiles files = findJobFiles({p});
            if (!files.error.empty()) {
                out.error = QString::fromStdString(files.error);
                return out;
            }
            std::vector<RankInput> inputs;
            for (const JobFile& f : files.files)
                inputs.push_back(RankInput{f.path, f.rank});
            JobRunOptions options;
            options.cancel = &cancelled;
            options.progress = [self](size_t done, size_t total, const std::string& file, bool failed) {
                const QString name = QFileInfo(QString::fromStdString(file)).fileName();
                QMetaObject::invokeMethod(
                    qApp,
                    [self, done, total, name, failed] {
                        if (self) self->progress(done, total, name, failed);
                    },
                    Qt::QueuedConnection);
            };
            *out.job = runJob(inputs, loadRank, options);
            return out;
        },
        [this](Loaded loaded) {
            if (!loaded.error.isEmpty() || loaded.job->ranks.empty()) {
                QString error = loaded.error;
                if (error.isEmpty())
                    error = loaded.job->failures.empty()
                                ? u"No ranks"_s
                                : u"No rank could be analysed: "_s +
                                      QString::fromStdString(loaded.job->failures[0].error);
                m_status->setText(u"Cannot open %1: %2"_s.arg(m_path, error));
                m_progress->hide();
                emit loadFailed(error);
                return;
            }
            m_overview->setJob(std::move(loaded.job), m_path);
            m_stack->setCurrentIndex(1);
            emit jobLoaded();
        });
}

void RankJobWindow::progress(size_t done, size_t total, const QString& file, bool failed)
{
    m_progress->setRange(0, int(total));
    m_progress->setValue(int(done));
    m_status->setText(u"Analysing the ranks of %1: %2 of %3 done%4"_s.arg(m_path).arg(done).arg(total).arg(
        failed ? u" (%1 failed)"_s.arg(file) : QString()));
}

void RankJobWindow::openRank(const QString& path, qint64 rank, qint64 step)
{
    if (!QFileInfo::exists(path)) {
        QMessageBox::warning(
            this, u"Cannot open rank %1"_s.arg(rank),
            u"The trace of rank %1 is not at <b>%2</b> any more."_s.arg(rank).arg(path.toHtmlEscaped()));
        return;
    }
    auto* w = new MainWindow;
    w->setAttribute(Qt::WA_DeleteOnClose);
    w->setSessionTracking(false);
    QPointer<MainWindow> guard(w);
    connect(w, &MainWindow::documentLoaded, w, [guard, step](std::shared_ptr<const TraceDocument> doc) {
        if (!guard || step < 0 || !doc) return;
        const auto& steps = doc->trace->steps();
        for (size_t i = 0; i < steps.size(); ++i) {
            if (steps[i].number == step) {
                guard->timeline()->zoomToStep(int(i));
                break;
            }
        }
    });
    w->show();
    w->openPath(path, false);
    emit rankOpened(w);
}

} // namespace ks::ui
