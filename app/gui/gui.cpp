#include "app/cli/commands.h"
#include "app/gui/screenshot.h"
#include "ui/live/livecontroller.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/recentfiles.h"
#include "ui/panels/samplehint.h"
#include "ui/snapshot/snapshotdocument.h"
#include "ui/snapshot/snapshotwindow.h"

#include <QApplication>
#include <QFileInfo>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct GuiArgs {
    QString screenshot;
    int width = 1600;
    int height = 1000;
    QStringList files;
    QString compare; // --compare B: compare the (first) trace with B once it has loaded
    bool restore = true;
    QString error;
};

GuiArgs parseArgs(int argc, char** argv)
{
    GuiArgs a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--screenshot" && i + 1 < argc) {
            a.screenshot = QString::fromLocal8Bit(argv[++i]);
        } else if (arg == "--size" && i + 1 < argc) {
            const QString s = QString::fromLocal8Bit(argv[++i]);
            const QStringList wh = s.split(QLatin1Char('x'));
            bool okW = false, okH = false;
            if (wh.size() == 2) {
                a.width = wh[0].toInt(&okW);
                a.height = wh[1].toInt(&okH);
            }
            if (!okW || !okH || a.width < 200 || a.height < 150 || a.width > 16384 || a.height > 16384)
                a.error = QStringLiteral("--size wants WIDTHxHEIGHT, e.g. 1600x1000");
        } else if (arg == "--compare" && i + 1 < argc) {
            a.compare = QString::fromLocal8Bit(argv[++i]);
        } else if (arg == "--no-restore") {
            a.restore = false;
        } else if (arg.rfind("-", 0) == 0 && arg != "-") {
            // Options Qt understands (-platform, -style, ...) are left to QApplication.
            continue;
        } else {
            a.files << QString::fromLocal8Bit(argv[i]);
        }
    }
    if (!a.compare.isEmpty() && a.files.size() != 1)
        a.error = QStringLiteral("usage: kinetoscope A --compare B");
    if (!a.screenshot.isEmpty() && a.files.size() != 1)
        a.error = QStringLiteral("usage: kinetoscope --screenshot OUT.png [--size WxH] FILE");
    return a;
}

bool haveDisplay()
{
#if defined(__linux__) || defined(__FreeBSD__)
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
#else
    return true;
#endif
}

} // namespace

int runGui(int argc, char** argv)
{
    const GuiArgs args = parseArgs(argc, argv);
    if (!args.error.isEmpty()) {
        std::fprintf(stderr, "kinetoscope: %s\n", qPrintable(args.error));
        return 2;
    }
    if (!haveDisplay()) {
        // Without a display Qt would abort; describe the trace on the terminal instead.
        std::string file =
            args.files.isEmpty() ? ks::cli::sampleTracePath() : args.files.front().toStdString();
        if (file.empty()) {
            std::fprintf(stderr, "kinetoscope: no display available and no trace given\n");
            return 2;
        }
        return ks::cli::describeOnTerminal(
            file, "no display available (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM are unset)");
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QApplication::setApplicationName(QStringLiteral("kinetoscope"));
    QApplication::setApplicationVersion(QStringLiteral(KS_VERSION));

    if (!args.screenshot.isEmpty())
        return ks::app::runScreenshot(args.files.front(), args.screenshot, QSize(args.width, args.height),
                                      args.compare);

    ks::ui::setLiveResources(ks::cli::liveResources());
    ks::ui::SampleHint::setSamplePath(QString::fromStdString(ks::cli::sampleTracePath()));
    QStringList files = args.files;
    if (files.isEmpty() && args.restore) files = ks::ui::recentfiles::lastSession();
    if (files.isEmpty()) {
        const std::string sample = ks::cli::sampleTracePath();
        if (!sample.empty()) files << QString::fromStdString(sample);
    }
    // Memory snapshots of the command line open in their own windows; a trace window is made only
    // for the other files, or when there is nothing else to show.
    if (args.compare.isEmpty()) {
        QStringList rest;
        for (const QString& f : files) {
            if (!ks::ui::isSnapshotFile(f)) {
                rest << f;
                continue;
            }
            auto* w = new ks::ui::SnapshotWindow;
            w->setRecentTracking(true);
            w->show();
            w->openSnapshot(f);
        }
        if (rest.isEmpty() && !files.isEmpty()) return app.exec();
        files = rest;
    }
    // The files of the command line (or of the last session) each get a window; the first one this.
    auto* window = new ks::ui::MainWindow;
    window->show();
    if (!args.compare.isEmpty()) {
        const QString b = args.compare;
        QObject::connect(
            window, &ks::ui::MainWindow::documentLoaded, window,
            [window, b](const auto&) { window->compareWith(b); }, Qt::SingleShotConnection);
    }
    for (qsizetype i = 0; i < files.size(); ++i) {
        ks::ui::MainWindow* w = window;
        if (i > 0) {
            w = new ks::ui::MainWindow;
            w->show();
        }
        w->openPath(files[i], false);
    }
    return app.exec();
}
