#include "core/io/logdir.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace Qt::StringLiterals;

class TestLogdir : public QObject {
    Q_OBJECT
private:
    static void touch(const QString& path, int bytes = 10)
    {
        QDir().mkpath(QFileInfo(path).path());
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(bytes, 'x'));
    }

private slots:
    void parsesNames()
    {
        std::string w, s;
        QVERIFY(parseTraceFileName("worker0.1623143089861.pt.trace.json.gz", w, s));
        QCOMPARE(w, std::string("worker0"));
        QCOMPARE(s, std::string("1623143089861"));
        QVERIFY(parseTraceFileName("host_12.34.pt.trace.json", w, s));
        QCOMPARE(w, std::string("host_12"));
        QCOMPARE(s, std::string("34"));
        QVERIFY(parseTraceFileName("worker0.pt.trace.json", w, s));
        QCOMPARE(w, std::string("worker0"));
        QCOMPARE(s, std::string());
        QVERIFY(!parseTraceFileName("events.out.tfevents", w, s));
        QVERIFY(!parseTraceFileName("trace.json", w, s));
    }

    void findsRunsWorkersAndSpans()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        touch(dir.filePath(u"runA/worker0.200.pt.trace.json.gz"_s));
        touch(dir.filePath(u"runA/worker0.100.pt.trace.json.gz"_s));
        touch(dir.filePath(u"runA/worker1.100.pt.trace.json"_s), 33);
        touch(dir.filePath(u"runB/plugins/profile/x/host_1.5.pt.trace.json.gz"_s));
        touch(dir.filePath(u"runB/notes.txt"_s));
        touch(dir.filePath(u"other.json"_s)); // ignored: real traces exist
        const auto entries = scanLogdir(dir.path().toStdString());
        QCOMPARE(entries.size(), size_t(4));
        QCOMPARE(entries[0].run, std::string("runA"));
        QCOMPARE(entries[0].worker, std::string("worker0"));
        QCOMPARE(entries[0].span, std::string("100"));
        QCOMPARE(entries[1].span, std::string("200"));
        QCOMPARE(entries[2].worker, std::string("worker1"));
        QCOMPARE(entries[2].bytes, uint64_t(33));
        QCOMPARE(entries[3].run, std::string("runB/plugins/profile/x"));
        QVERIFY(QFileInfo(QString::fromStdString(entries[3].path)).isAbsolute());
    }

    void fallsBackToAnyJson()
    {
        QTemporaryDir dir;
        touch(dir.filePath(u"a.json"_s));
        touch(dir.filePath(u"b.json.gz"_s));
        touch(dir.filePath(u"c.txt"_s));
        const auto entries = scanLogdir(dir.path().toStdString());
        QCOMPARE(entries.size(), size_t(2));
        QCOMPARE(entries[0].run, std::string("."));
    }
};

QTEST_GUILESS_MAIN(TestLogdir)
#include "tst_logdir.moc"
