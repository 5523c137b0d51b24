// ks::record::bench: timeit, profileit, summaries and CSV (torch_geometric.profile's helpers).

#include "core/record/benchtools.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <thread>

using namespace ks::record::bench;
using namespace Qt::StringLiterals;

class TestBenchTools : public QObject {
    Q_OBJECT
private slots:
    void timeitMeasuresTheScope()
    {
        double d = 0;
        {
            Timeit t(false, 0, "timeit", &d);
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        QVERIFY(d >= 0.029);
        QVERIFY(d < 1.0);
        double per = 0;
        {
            Timeit t(false, 10, "timeit", &per);
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        QVERIFY(per >= 0.0029 && per < 0.1);
    }

    void profileitSeesThePeak()
    {
        if (!resetPeakRss()) QSKIP("/proc/self/clear_refs is not writable here");
        const Stats small = profileit([] {});
        const Stats big = profileit([] {
            std::vector<char> v(64 << 20);
            std::memset(v.data(), 1, v.size());
            QVERIFY(v[12345] == 1);
        });
        QVERIFY2(big.peakRssBytes >= small.peakRssBytes + (60 << 20),
                 qPrintable(QStringLiteral("%1 vs %2").arg(big.peakRssBytes).arg(small.peakRssBytes)));
    }

    void summaryStatistics()
    {
        // mean 3, sample variance ((1)^2 + 0 + (1)^2) / 2 = 1.
        const std::vector<Stats> runs = {{2.0, 10}, {3.0, 30}, {4.0, 20}};
        const StatsSummary s = summarize(runs);
        QCOMPARE(s.timeMean, 3.0);
        QCOMPARE(s.timeStd, 1.0);
        QCOMPARE(s.timeMax, 4.0);
        QCOMPARE(s.peakRssMax, int64_t(30));
        QCOMPARE(summarize({{5.0, 1}}).timeStd, 0.0);
    }

    void csvOutput()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(u"stats.csv"_s).toStdString();
        std::string err;
        QVERIFY(writeCsv(path, std::vector<Stats>{{0.5, 1024}, {0.25, 2048}}, {"a", "b,c"}, &err));
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("name,time,peak_rss\na,0.5,1024\n\"b,c\",0.25,2048\n"));
        QVERIFY(
            !writeCsv(dir.filePath(u"missing/x.csv"_s).toStdString(), std::vector<Stats>{{1, 1}}, {}, &err));
        QVERIFY(!err.empty());
    }
};

QTEST_GUILESS_MAIN(TestBenchTools)
#include "tst_benchtools.moc"
