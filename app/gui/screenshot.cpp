#include "app/gui/screenshot.h"

#include "core/util/textescape.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/ranks/rankjobwindow.h"
#include "ui/snapshot/snapshotwindow.h"

#include <QApplication>
#include <QImage>
#include <QPixmap>
#include <QPointer>
#include <QTimer>
#include <cstdio>

namespace ks::app {

namespace {

void save(QWidget* w, const QString& out, QSize size, int& code)
{
    QImage image = w->grab().toImage();
    if (image.size() != size) image = image.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    if (image.save(out, "PNG")) {
        code = 0;
        std::fprintf(stderr, "kinetoscope: wrote %s (%dx%d)\n", qPrintable(out), image.width(),
                     image.height());
    } else {
        std::fprintf(stderr, "kinetoscope: cannot write %s\n", qPrintable(out));
    }
    qApp->quit();
}

} // namespace

int runScreenshot(const QString& file, const QString& out, QSize size, const QString& compare)
{
    QPointer<ui::MainWindow> window = new ui::MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose, false);
    window->setInteractive(false);
    window->setSessionTracking(false);
    window->resize(size);
    window->show();
    int code = 1;
    QObject::connect(window, &ui::MainWindow::documentLoaded, window, [&](const auto&) {
        if (!compare.isEmpty()) {
            window->compareWith(compare);
            return;
        }
        // Let layouts settle and the first frame paint before grabbing.
        QTimer::singleShot(100, window, [&] { save(window, out, size, code); });
    });
    QObject::connect(window, &ui::MainWindow::compareOpened, window, [&](QWidget* w) {
        auto* cw = static_cast<ui::CompareWindow*>(w);
        cw->resize(size);
        QObject::connect(cw->view(), &ui::CompareView::compared, cw,
                         [&, cw] { QTimer::singleShot(300, cw, [&, cw] { save(cw, out, size, code); }); });
    });
    // A job directory or .kjob opens the Rank overview in a window of its own: that one is grabbed.
    QObject::connect(window, &ui::MainWindow::jobOpened, window, [&](QMainWindow* job) {
        auto* w = static_cast<ui::RankJobWindow*>(job);
        w->resize(size);
        QObject::connect(w, &ui::RankJobWindow::jobLoaded, w,
                         [&, w] { QTimer::singleShot(100, w, [&, w] { save(w, out, size, code); }); });
        QObject::connect(w, &ui::RankJobWindow::loadFailed, window, [&](const QString& error) {
            std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(file.toStdString()).c_str(),
                         escapeText(error.toStdString()).c_str());
            qApp->quit();
        });
    });
    // A memory snapshot opens in a window of its own too.
    QObject::connect(window, &ui::MainWindow::snapshotOpened, window, [&](QMainWindow* snap) {
        auto* w = static_cast<ui::SnapshotWindow*>(snap);
        w->resize(size);
        QObject::connect(w, &ui::SnapshotWindow::snapshotLoaded, w,
                         [&, w] { QTimer::singleShot(100, w, [&, w] { save(w, out, size, code); }); });
        QObject::connect(w, &ui::SnapshotWindow::loadFailed, window, [&](const QString& error) {
            std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(file.toStdString()).c_str(),
                         escapeText(error.toStdString()).c_str());
            qApp->quit();
        });
    });
    QObject::connect(window, &ui::MainWindow::loadFailed, window,
                     [&](const QString& path, const QString& error) {
                         // The error can quote the trace: escaped like every terminal message.
                         std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(path.toStdString()).c_str(),
                                      escapeText(error.toStdString()).c_str());
                         qApp->quit();
                     });
    // Opened from the event loop: a load that fails at once must find the loop running to quit it.
    QTimer::singleShot(0, window, [&] { window->openPath(file, false); });
    QApplication::exec();
    delete window.data();
    return code;
}

} // namespace ks::app
