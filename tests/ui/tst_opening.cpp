// Which window a file opens in, the title after a failed open, drag and drop.

#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/tracefiledialog.h"
#include "ui/panels/samplehint.h"
#include "ui/util/preferences.h"

#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileInfo>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kSmall = "pytorch_kineto__docs__traces__before_fix_trace.json";
const char* kOther = "pytorch_kineto__docs__traces__after_fix_trace.json";

QString shared(const char* name)
{
    return QStringLiteral(KS_SHARED_TRACES "/") + QLatin1String(name);
}

MainWindow* newWindow()
{
    auto* w = new MainWindow;
    w->setInteractive(false);
    w->setSessionTracking(false);
    w->resize(1200, 800);
    w->show();
    return w;
}

QList<MainWindow*> mainWindows()
{
    QList<MainWindow*> out;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* m = qobject_cast<MainWindow*>(w))
            if (m->isVisible()) out << m;
    return out;
}

void closeAll()
{
    for (MainWindow* w : mainWindows())
        w->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

// Sends what a file manager sends when files are dragged onto the window and dropped.
bool dragAndDrop(QWidget* target, const QList<QUrl>& urls)
{
    QMimeData mime;
    mime.setUrls(urls);
    const QPoint at(target->width() / 2, target->height() / 2);
    QDragEnterEvent enter(at, Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime, Qt::LeftButton,
                          Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) return false;
    QDragMoveEvent move(at, Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime, Qt::LeftButton,
                        Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    if (!move.isAccepted()) return false;
    QDropEvent drop(QPointF(at), Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, &mime, Qt::LeftButton,
                    Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    return drop.isAccepted() && drop.dropAction() == Qt::CopyAction;
}

} // namespace

class TestOpening : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    }
    void cleanup() { closeAll(); }

    // #30 item 12: the first start shows the bundled sample; a strip says so and offers the next
    // steps (open, launch, compare) as links; any other trace has no such strip.
    void theSampleSaysWhatItIsAndWhatToDoNext()
    {
        const QString sample = QStringLiteral(KS_SOURCE_DIR "/resources/samples/sample.pt.trace.json.gz");
        SampleHint::setSamplePath(sample);
        MainWindow* w = newWindow();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(sample);
        QVERIFY(loaded.wait(60000));
        QVERIFY(w->sampleHint()->isVisible());
        const QString text = w->sampleHint()->text();
        QVERIFY2(text.contains(QStringLiteral("bundled sample")), qPrintable(text));
        for (const char* link : {"href='open'", "href='launch'", "href='compare'"})
            QVERIFY2(text.contains(QLatin1String(link)), link);
        // The links reach the window: "compare" opens the compare file dialog (closed here).
        QTimer::singleShot(0, [] {
            QTRY_VERIFY(QApplication::activeModalWidget());
            QApplication::activeModalWidget()->close();
        });
        emit w->sampleHint()->actionRequested(QStringLiteral("compare"));

        w->setBusyOpen(MainWindow::BusyOpen::Here);
        w->openPath(shared(kSmall));
        QVERIFY(loaded.wait(60000));
        QVERIFY(!w->sampleHint()->isVisible());
        SampleHint::setSamplePath(QString());
    }

    void anEmptyWindowTakesTheFile()
    {
        MainWindow* w = newWindow();
        const int before = mainWindows().size();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(shared(kSmall)); // the default: a new window only when this one is busy
        QVERIFY(loaded.wait(60000));
        QCOMPARE(mainWindows().size(), before);
        QCOMPARE(w->windowTitle(), QString::fromLatin1(kSmall) + QStringLiteral(" — Kinetoscope"));
    }

    void aBusyWindowOpensHereOrInANewWindowAsChosen()
    {
        MainWindow* w = newWindow();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(shared(kSmall));
        QVERIFY(loaded.wait(60000));
        const int before = mainWindows().size();

        w->setBusyOpen(MainWindow::BusyOpen::Here);
        w->openPath(shared(kOther));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(mainWindows().size(), before);
        QVERIFY(w->document()->path.endsWith(QLatin1String(kOther)));
        QCOMPARE(w->windowTitle(), QString::fromLatin1(kOther) + QStringLiteral(" — Kinetoscope"));

        w->setBusyOpen(MainWindow::BusyOpen::NewWindow);
        w->openPath(shared(kSmall));
        QCOMPARE(mainWindows().size(), before + 1);
        QVERIFY(w->document()->path.endsWith(QLatin1String(kOther)));
    }

    // File > Open… on a folder: Open opens a log directory (or a job) instead of only going into it;
    // a folder of other files is still entered.
    void openDialogOpensALogDirectory()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("logdir/run1")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("plain")));
        const QString logdir = dir.filePath(QStringLiteral("logdir"));
        QVERIFY(QFile::copy(shared(kSmall),
                            logdir + QStringLiteral("/run1/worker0.1700000000000.pt.trace.json")));
        QVERIFY(QFile::copy(shared(kSmall), dir.filePath(QStringLiteral("plain/notes.json"))));
        QVERIFY(TraceFileDialog::opensAsFolder(logdir));
        QVERIFY(!TraceFileDialog::opensAsFolder(dir.filePath(QStringLiteral("plain"))));

        TraceFileDialog d;
        d.setDirectory(dir.path());
        d.selectFile(logdir);
        QCOMPARE(d.selectedFiles(), QStringList{logdir});
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.chosenPath(), QFileInfo(logdir).absoluteFilePath());

        TraceFileDialog plain;
        plain.setDirectory(dir.path());
        plain.selectFile(dir.filePath(QStringLiteral("plain")));
        plain.accept();
        QVERIFY(plain.chosenPath().isEmpty());
        QCOMPARE(QFileInfo(plain.directory().absolutePath()).fileName(), QStringLiteral("plain"));
    }

    // Re-opening: while the new trace loads, the docks say so instead of showing the previous
    // trace's Overview and details; a failed load gives the previous ones back.
    void theDocksDoNotShowThePreviousTraceWhileLoading()
    {
        MainWindow* w = newWindow();
        w->setBusyOpen(MainWindow::BusyOpen::Here);
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(shared(kSmall));
        QVERIFY(w->docksCovered());
        QVERIFY(loaded.wait(60000));
        QVERIFY(!w->docksCovered());
        const int minimum = w->minimumSizeHint().width();
        w->openPath(shared(kOther));
        QVERIFY(w->docksCovered());
        // The file's name in the cover does not widen the window (it made the minimum 1450 px).
        QVERIFY2(w->minimumSizeHint().width() <= minimum,
                 qPrintable(QStringLiteral("%1 > %2").arg(w->minimumSizeHint().width()).arg(minimum)));
        QVERIFY(loaded.wait(60000));
        QVERIFY(!w->docksCovered());

        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [ nope");
        f.close();
        QSignalSpy failed(w, &MainWindow::loadFailed);
        w->openPath(bad);
        QVERIFY(w->docksCovered());
        QVERIFY(failed.wait(60000));
        QVERIFY(!w->docksCovered());
        QVERIFY(w->document()->path.endsWith(QLatin1String(kOther)));
    }

    // Opening over a trace that can simply be opened again (the bundled sample, a file still on disk)
    // replaces it without asking; over one that cannot (its file removed) the Preferences' choice
    // applies, asked by default (a new window when nobody can be asked).
    void opensHereUnlessTheTraceHasSomethingToLose()
    {
        Preferences::instance().setOpenOver(QStringLiteral("ask"));
        MainWindow* w = newWindow();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(shared(kSmall));
        QVERIFY(loaded.wait(60000));
        int before = mainWindows().size();
        w->openPath(shared(kOther));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(mainWindows().size(), before);
        QVERIFY(w->document()->path.endsWith(QLatin1String(kOther)));

        // The shown trace's file is removed: a new window, the trace stays.
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("copy.json"));
        QVERIFY(QFile::copy(shared(kSmall), copy));
        w->openPath(copy);
        QVERIFY(loaded.wait(60000));
        QVERIFY(QFile::remove(copy));
        before = mainWindows().size();
        w->openPath(shared(kOther));
        QCOMPARE(mainWindows().size(), before + 1);
        QCOMPARE(w->document()->path, copy);

        // Remembered "here": replaced.
        Preferences::instance().setOpenOver(QStringLiteral("here"));
        Preferences::instance().reload(); // as stored
        QCOMPARE(Preferences::instance().openOver(), QStringLiteral("here"));
        before = mainWindows().size();
        w->openPath(shared(kOther));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(mainWindows().size(), before);
        QVERIFY(w->document()->path.endsWith(QLatin1String(kOther)));
        Preferences::instance().setOpenOver(QStringLiteral("ask"));
    }

    void aFailedOpenLeavesTheTitleClean()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.pt.trace.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"traceEvents\": [ this is not json");
        }
        // In an empty window: the title goes back to the application's name...
        MainWindow* w = newWindow();
        QSignalSpy failed(w, &MainWindow::loadFailed);
        w->openPath(bad);
        QVERIFY(failed.wait(60000));
        QCOMPARE(w->windowTitle(), QStringLiteral("Kinetoscope"));
        QVERIFY(!w->document());
        // ...and the window is still empty, so the next file opens in it.
        const int before = mainWindows().size();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        w->openPath(shared(kSmall));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(mainWindows().size(), before);

        // In a window with a trace: back to that trace's name.
        w->setBusyOpen(MainWindow::BusyOpen::Here);
        w->openPath(bad);
        QVERIFY(failed.wait(60000));
        QCOMPARE(w->windowTitle(), QString::fromLatin1(kSmall) + QStringLiteral(" — Kinetoscope"));
        // A file that does not exist never reaches the title.
        w->openPath(dir.filePath(QStringLiteral("missing.json")));
        QCOMPARE(w->windowTitle(), QString::fromLatin1(kSmall) + QStringLiteral(" — Kinetoscope"));
    }

    void droppingAFileOpensIt()
    {
        MainWindow* w = newWindow();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        QVERIFY(dragAndDrop(w, {QUrl::fromLocalFile(shared(kSmall))}));
        QVERIFY(loaded.wait(60000));
        QVERIFY(w->document()->path.endsWith(QLatin1String(kSmall)));
    }

    void droppingALogDirectoryOpensItsNewestTrace()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("run1")));
        const QString dest = dir.filePath(QStringLiteral("run1/worker0.1700000000000.pt.trace.json"));
        QVERIFY(QFile::copy(shared(kSmall), dest));
        MainWindow* w = newWindow();
        QSignalSpy loaded(w, &MainWindow::documentLoaded);
        QVERIFY(dragAndDrop(w, {QUrl::fromLocalFile(dir.path())}));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(QFileInfo(w->document()->path).fileName(), QFileInfo(dest).fileName());
    }

    void dropsOfNonFilesAreRefused()
    {
        MainWindow* w = newWindow();
        QVERIFY(!dragAndDrop(w, {QUrl(QStringLiteral("https://example.com/trace.json"))}));
        QMimeData text;
        text.setText(QStringLiteral("hello"));
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w, &enter);
        QVERIFY(!enter.isAccepted());
    }
};

QTEST_MAIN(TestOpening)
#include "tst_opening.moc"
