#include "ui/mainwindow/tracefiledialog.h"

#include "core/io/logdir.h"
#include "ui/ranks/rankjobwindow.h"

#include <QFileInfo>

namespace ks::ui {

TraceFileDialog::TraceFileDialog(QWidget* parent) : QFileDialog(parent, QStringLiteral("Open trace"))
{
    // The platform's dialog would not let accept() decide what a folder means.
    setOption(QFileDialog::DontUseNativeDialog, true);
    setFileMode(QFileDialog::ExistingFile);
    setAcceptMode(QFileDialog::AcceptOpen);
    setNameFilters(
        {QStringLiteral("PyTorch traces and memory snapshots (*.json *.json.gz *.gz *.pickle *.pkl)"),
         QStringLiteral("PyTorch traces (*.json *.json.gz *.gz)"),
         QStringLiteral("CUDA memory snapshots (*.pickle *.pkl)"), QStringLiteral("Job summaries (*.kjob)"),
         QStringLiteral("All files (*)")});
}

bool TraceFileDialog::opensAsFolder(const QString& dir)
{
    const QFileInfo fi(dir);
    if (!fi.isDir()) return false;
    // A job's folder first: its ranks' traces would also make it a log directory.
    if (RankJobWindow::isJobPath(dir)) return true;
    // Only files named as tensorboard_trace_handler names them (scanLogdir's fallback, any *.json,
    // would turn every folder with a JSON file in it into a log directory and stop navigation).
    for (const LogdirEntry& e : scanLogdir(fi.absoluteFilePath().toStdString(), 3)) {
        std::string worker, span;
        if (parseTraceFileName(QFileInfo(QString::fromStdString(e.path)).fileName().toStdString(), worker,
                               span))
            return true;
    }
    return false;
}

void TraceFileDialog::accept()
{
    const QStringList files = selectedFiles();
    if (files.size() == 1 && opensAsFolder(files.front())) {
        m_chosen = QFileInfo(files.front()).absoluteFilePath();
        QDialog::accept();
        return;
    }
    QFileDialog::accept();
    if (result() == QDialog::Accepted && !selectedFiles().isEmpty()) m_chosen = selectedFiles().front();
}

} // namespace ks::ui
