#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

// Runs the kinetoscope executable the way a user or CI would.
class TestScreenshot : public QObject {
    Q_OBJECT
private:
    static QString binary() { return QStringLiteral(KS_BINARY_DIR "/app/kinetoscope"); }

private slots:
    void writesPngOfRequestedSize_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QSize>("size");
        QTest::newRow("sample 800x600")
            << QStringLiteral(KS_SOURCE_DIR "/resources/samples/sample.pt.trace.json.gz") << QSize(800, 600);
        QTest::newRow("resnet 1600x1000")
            << QStringLiteral(
                   KS_SHARED_TRACES
                   "/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz")
            << QSize(1600, 1000);
    }
    void writesPngOfRequestedSize()
    {
        QFETCH(QString, trace);
        QFETCH(QSize, size);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("shot.png"));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(binary(), {QStringLiteral("--screenshot"), out, QStringLiteral("--size"),
                           QStringLiteral("%1x%2").arg(size.width()).arg(size.height()), trace});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QImage img(out);
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), size);
        // Not a blank canvas: the timeline paints many colours.
        QSet<QRgb> colors;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7)
                colors.insert(img.pixel(x, y));
        QVERIFY2(colors.size() > 20, qPrintable(QString::number(colors.size())));
    }

    void badArgumentsFail()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(binary(), {QStringLiteral("--screenshot"), QStringLiteral("/tmp/x.png"),
                           QStringLiteral("--size"), QStringLiteral("big"), QStringLiteral("file.json")});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 2);
        p.start(binary(), {QStringLiteral("--screenshot"), QStringLiteral("/tmp/x.png"),
                           QStringLiteral("/no/such/file.json")});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 1);
    }

    void withoutDisplayDescribesTheTrace()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        p.setProcessEnvironment(env);
        p.start(binary(), {QStringLiteral(KS_SOURCE_DIR "/resources/samples/sample.pt.trace.json.gz")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("no display")));
        // torch's summary table, sorted by device time for this GPU trace.
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("Self CPU time total:")), qPrintable(out));
        QVERIFY(out.contains(QStringLiteral("Self CUDA time total:")));
        QVERIFY(out.contains(QStringLiteral("aten::mm")));
    }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
