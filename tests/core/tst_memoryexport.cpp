#include "base64decode.h"
#include "core/analysis/memory/memoryexport.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/util/base64.h"
#include "core/util/png.h"
#include "memorytracetext.h"
#include "pngdecode.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <zlib.h>

using namespace ks;
using ks::test::TraceText;

namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string gunzip(const std::string& bytes)
{
    z_stream zs{};
    inflateInit2(&zs, 15 + 16);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = uInt(bytes.size());
    std::string out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buf, sizeof buf - zs.avail_out);
    }
    inflateEnd(&zs);
    return rc == Z_STREAM_END ? out : std::string();
}

// The entries of the hand-worked coalescing example below.
std::vector<MemoryTimelineEntry> sampleEntries()
{
    return {
        {-1, MemoryAction::Preexisting, 100, MemoryCategory::Gradient},
        {1000000, MemoryAction::Create, 50, MemoryCategory::Activation},
        {1000400, MemoryAction::Create, 30, MemoryCategory::Temporary},
        {1002000, MemoryAction::Destroy, 30, MemoryCategory::Temporary},
        {1003000, MemoryAction::Destroy, 100, MemoryCategory::Gradient},
        {1003500, MemoryAction::IncrementVersion, 50, MemoryCategory::Activation},
    };
}

int64_t rowTotal(const QJsonArray& row)
{
    int64_t s = 0;
    for (const QJsonValue& v : row)
        s += v.toInteger();
    return s;
}

} // namespace

class TestMemoryExport : public QObject {
    Q_OBJECT
private slots:
    void microsecondsLikePython()
    {
        // Hand-derived. Near 1.7e15 doubles are 0.25 apart, so Python's t / 1000 rounds the exact
        // quotient to a multiple of 0.25 (ties to an even multiple) before int() truncates it:
        //   ...875 -> q + 0.875 is a tie between q + 0.75 (4q + 3, odd) and q + 1.0 (even): q + 1.
        //   ...874 -> nearer q + 0.75: q.   ...625 -> tie between q + 0.5 (even) and q + 0.75: q.
        //   ...999 -> nearer q + 1.0: q + 1.
        QCOMPARE(pythonMicros(1700000000000000875), int64_t(1700000000000001));
        QCOMPARE(pythonMicros(1700000000000000874), int64_t(1700000000000000));
        QCOMPARE(pythonMicros(1700000000000000625), int64_t(1700000000000000));
        QCOMPARE(pythonMicros(1700000000000000999), int64_t(1700000000000001));
        // Small values are exact: plain truncation toward zero.
        QCOMPARE(pythonMicros(123456789), int64_t(123456));
        QCOMPARE(pythonMicros(999), int64_t(0));
        QCOMPARE(pythonMicros(1000), int64_t(1));
        QCOMPARE(pythonMicros(-1500), int64_t(-1));
        QCOMPARE(pythonMicros(0), int64_t(0));
    }

    void coalescesLikeTorch()
    {
        // Rows by distinct consecutive time (µs): -1 (pre-existing 100 B of GRADIENT, column 6),
        // 1000 (+50 ACTIVATION col 5, +30 TEMPORARY col 4; 1000400 ns truncates to the same µs),
        // 1002 (-30 TEMPORARY), 1003 (-100 GRADIENT; the INCREMENT_VERSION moves 50 B from
        // ACTIVATION to ACTIVATION). The -1 row takes the smallest positive time, 1000, which
        // duplicates the next row's time as torch's output does.
        const CoalescedMemory c = coalesceMemoryTimeline(sampleEntries());
        QCOMPARE(memoryTimelineJson(c),
                 std::string("[[1000, 1000, 1002, 1003], [[0, 0, 0, 0, 0, 0, 100, 0, 0], "
                             "[0, 0, 0, 0, 30, 50, 100, 0, 0], [0, 0, 0, 0, 0, 50, 100, 0, "
                             "0], [0, 0, 0, 0, 0, 50, 0, 0, 0]]]"));
        QCOMPARE(memoryTimelineJson(CoalescedMemory()), std::string("[[], []]"));
    }

    void rawTuplesLikeTorch()
    {
        // [t_ns, action value, +bytes for PREEXISTING/CREATE, -bytes for DESTROY, category index];
        // INCREMENT_VERSION is -bytes at the old version and +bytes at the new one, action 3 both.
        QCOMPARE(
            memoryTimelineRawJson(sampleEntries()),
            std::string("[[-1, 1, 100, 5], [1000000, 2, 50, 4], [1000400, 2, 30, 3], [1002000, 4, -30, 3], "
                        "[1003000, 4, -100, 5], [1003500, 3, -50, 4], [1003500, 3, 50, 4]]"));
        QCOMPARE(memoryTimelineRawJson({}), std::string("[]"));
    }

    void timelineUsesEpochNanoseconds()
    {
        auto trace = TraceText()
                         .baseTime(1752800000000000000)
                         .mem(1, 10, 0x1)
                         .mem(2, 20, 0x2)
                         .mem(3, -10, 0x1)
                         .mem(4, -5, 0x3)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const auto entries = memoryTimelineEntries(*trace, tl.devices()[0]);
        QCOMPARE(entries.size(), size_t(5));
        QCOMPARE(entries[0].t, int64_t(-1));
        QCOMPARE(entries[1].t, int64_t(1752800000000001000));
        QCOMPARE(entries[4].t, int64_t(1752800000000004000));
        const CoalescedMemory c = coalesceMemoryTimeline(entries);
        QCOMPARE(c.times.front(), int64_t(1752800000000001));
        QCOMPARE(c.times.back(), int64_t(1752800000000004));
    }

    void dispatchesOnTheFileName()
    {
        QCOMPARE(memoryExportFormatFor("a.html"), MemoryExportFormat::Html);
        QCOMPARE(memoryExportFormatFor("a.json"), MemoryExportFormat::Json);
        QCOMPARE(memoryExportFormatFor("a.txt"), MemoryExportFormat::Json);
        QCOMPARE(memoryExportFormatFor("a.json.gz"), MemoryExportFormat::JsonGz);
        QCOMPARE(memoryExportFormatFor("a.gz"), MemoryExportFormat::JsonGz);
        QCOMPARE(memoryExportFormatFor("a.raw.json.gz"), MemoryExportFormat::RawJsonGz);
        QCOMPARE(memoryExportFormatFor("araw.json.gz"), MemoryExportFormat::RawJsonGz);
    }

    void htmlIsTorchsSixLinesWithA1600x960Png()
    {
        auto trace = TraceText()
                         .mem(0, 1 << 30, 0x1, 1, 0, 1, 1 << 30, 3 << 29)
                         .mem(100000, -(1 << 30), 0x1, 1, 0, 1, 0, 3 << 29)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = tl.devices()[0];
        const CoalescedMemory c = coalesceMemoryTimeline(memoryTimelineEntries(*trace, dev));
        const std::string html = memoryTimelineHtml(c, dev);
        const QStringList lines = QString::fromStdString(html).split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines[0], QStringLiteral("<html>"));
        QCOMPARE(
            lines[1],
            QStringLiteral("<head><meta charset=\"utf-8\" /><title>GPU Memory Timeline HTML</title></head>"));
        QCOMPARE(lines[2], QStringLiteral("<body>"));
        QVERIFY(lines[3].startsWith(QStringLiteral("  <img src='data:image/png;base64,")));
        // The image shrinks to the browser window, so its right side (the legend) is never cut off.
        const QString tail = QStringLiteral("' style='max-width:100%;height:auto'>");
        QVERIFY(lines[3].endsWith(tail));
        QCOMPARE(lines[4], QStringLiteral("</body>"));
        QCOMPARE(lines[5], QStringLiteral("</html>"));

        const QString b64 = lines[3].mid(34, lines[3].size() - 34 - tail.size());
        const auto png = ks::test::base64Decode(b64.toStdString());
        QVERIFY(png);
        const ks::test::PngImage img = ks::test::decodePng(*png);
        QVERIFY2(img.ok, img.error.c_str());
        QCOMPARE(img.width, 1600);
        QCOMPARE(img.height, 960);
        auto at = [&img](int x, int y) {
            const uint8_t* p = &img.rgb[(size_t(y) * img.width + x) * 3];
            return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
        };
        QCOMPARE(at(0, 959), uint32_t(0xffffff));
        // 1 GiB of Unknown for 100 ms: the middle of the axes box is grey (0x808080) at alpha 0.7
        // over white: 255 + (128 - 255) * 0.7 = 166.1 -> 166 = 0xa6.
        int axesRight = -1;
        for (int x = img.width - 1; x >= 0 && axesRight < 0; --x)
            if (at(x, 500) == 0) axesRight = x;
        QCOMPARE(at((200 + axesRight) / 2, 500), uint32_t(0xa6a6a6));
        // The axes frame is black where matplotlib puts it: x = 12.5% of 1600, y = 12% of 960.
        QCOMPARE(at(200, 500), uint32_t(0x000000));
        QCOMPARE(at(820, 115), uint32_t(0x000000));
        // The legend (light grey frame, top right) lies wholly inside the image and right of the
        // axes box, so neither a narrow window nor the plot cuts or covers it.
        int legendLeft = -1, legendRight = -1, legendBottom = -1;
        for (int x = 0; x < img.width; ++x)
            if (at(x, 6) == 0xcccccc) {
                if (legendLeft < 0) legendLeft = x;
                legendRight = x;
            }
        for (int y = 6; y < img.height; ++y)
            if (legendLeft >= 0 && at(legendLeft, y) == 0xcccccc) legendBottom = y;
        QVERIFY(legendLeft > axesRight);
        QVERIFY(legendRight < img.width - 1);
        QVERIFY(legendBottom > 100 && legendBottom < img.height - 1);
    }

    void writesFilesAtomicallyInEveryFormat()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto trace = TraceText().mem(1, 10, 0x1).mem(2, -10, 0x1).mem(3, 7, 0x2, 0, -1).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const std::string base = dir.path().toStdString() + "/t";
        std::string error;

        // An existing file is replaced, not appended to.
        std::ofstream(base + ".json") << "old contents that are longer than the new ones, by far";
        QVERIFY2(exportMemoryTimeline(tl, MemoryDevice{1, 0}, base + ".json", error), error.c_str());
        const std::string json = readFile(base + ".json");
        QCOMPARE(json, std::string("[[1, 2], [[0, 0, 0, 0, 0, 0, 0, 0, 10], [0, 0, 0, 0, 0, 0, 0, 0, 0]]]"));

        QVERIFY2(exportMemoryTimeline(tl, MemoryDevice{1, 0}, base + ".json.gz", error), error.c_str());
        const std::string gz = readFile(base + ".json.gz");
        QCOMPARE(gunzip(gz), json);
        // Python's gzip header: FNAME flag, XFL 2 (level 9), OS 255, the name without ".gz".
        QCOMPARE(uint8_t(gz[0]), uint8_t(0x1f));
        QCOMPARE(uint8_t(gz[1]), uint8_t(0x8b));
        QVERIFY(uint8_t(gz[3]) & 0x08);
        QCOMPARE(uint8_t(gz[8]), uint8_t(2));
        QCOMPARE(uint8_t(gz[9]), uint8_t(255));
        QCOMPARE(std::string(gz.c_str() + 10), std::string("t.json"));

        QVERIFY(exportMemoryTimeline(tl, MemoryDevice{1, 0}, base + ".raw.json.gz", error));
        QCOMPARE(gunzip(readFile(base + ".raw.json.gz")),
                 std::string("[[1000, 2, 10, 7], [2000, 4, -10, 7]]"));
        QVERIFY(exportMemoryTimeline(tl, MemoryDevice{0, -1}, base + ".html", error));
        QVERIFY(readFile(base + ".html").starts_with("<html>\n"));

        // Nothing but the four outputs is left in the folder (no temporary files).
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 4);

        QVERIFY(!exportMemoryTimeline(tl, MemoryDevice{1, 1}, base + "2.json", error));
        QCOMPARE(error, std::string("no memory events on device cuda:1; devices in this trace: cpu, cuda:0"));
        QVERIFY(!exportMemoryTimeline(tl, MemoryDevice{1, 0}, dir.path().toStdString() + "/missing/x.json",
                                      error));
        QVERIFY(QString::fromStdString(error).contains(QStringLiteral("missing/x.json")));
    }

    void sharedTracesExportWithTorchsStructure_data()
    {
        QTest::addColumn<QString>("path");
        for (const std::string& p : ks::test::sharedMemoryTraces())
            QTest::newRow(std::filesystem::path(p).filename().string().substr(0, 48).c_str())
                << QString::fromStdString(p);
    }

    void sharedTracesExportWithTorchsStructure()
    {
        QFETCH(QString, path);
        if (!std::filesystem::exists(path.toStdString())) QSKIP("shared trace not present");
        const LoadResult r = loadTraceFile(path.toStdString());
        QVERIFY(r.ok());
        const MemoryTimeline tl = MemoryTimeline::build(*r.trace);
        QTemporaryDir dir;
        for (const MemoryDeviceTimeline& dev : tl.devices()) {
            const std::string base = dir.path().toStdString() + "/" + dev.device.name();
            std::string error;
            QVERIFY2(exportMemoryTimeline(tl, dev.device, base + ".json", error), error.c_str());
            QVERIFY2(exportMemoryTimeline(tl, dev.device, base + ".raw.json.gz", error), error.c_str());
            QVERIFY2(exportMemoryTimeline(tl, dev.device, base + ".html", error), error.c_str());

            // Final live bytes, from the rebuilt allocations.
            int64_t live = 0;
            for (const MemoryAllocation& a : dev.allocations)
                if (a.alive()) live += a.bytes;

            QJsonParseError perr;
            const QJsonDocument doc =
                QJsonDocument::fromJson(QByteArray::fromStdString(readFile(base + ".json")), &perr);
            QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
            const QJsonArray top = doc.array();
            QCOMPARE(top.size(), 2);
            const QJsonArray times = top[0].toArray(), sizes = top[1].toArray();
            QCOMPARE(times.size(), sizes.size());
            QVERIFY(!times.isEmpty());
            for (qsizetype i = 0; i < times.size(); ++i) {
                QVERIFY(times[i].toInteger() > 0);
                if (i) QVERIFY(times[i].toInteger() >= times[i - 1].toInteger());
                const QJsonArray row = sizes[i].toArray();
                QCOMPARE(row.size(), 9);
                QCOMPARE(row[0].toInteger(), qint64(0));
                for (const QJsonValue& v : row)
                    QVERIFY(v.toInteger() >= 0);
            }
            QCOMPARE(rowTotal(sizes.last().toArray()), live);

            const QJsonArray raw =
                QJsonDocument::fromJson(QByteArray::fromStdString(gunzip(readFile(base + ".raw.json.gz"))))
                    .array();
            QVERIFY(!raw.isEmpty());
            int64_t sum = 0;
            for (const QJsonValue& v : raw) {
                const QJsonArray t = v.toArray();
                QCOMPARE(t.size(), 4);
                const int action = t[1].toInt();
                QVERIFY(action >= 1 && action <= 4);
                QVERIFY(t[3].toInt() >= 0 && t[3].toInt() <= 7);
                QCOMPARE(t[0].toInteger() == -1, action == 1);
                sum += t[2].toInteger();
            }
            QCOMPARE(sum, live);

            const std::string html = readFile(base + ".html");
            const size_t b = html.find("base64,") + 7;
            const auto png = ks::test::base64Decode(html.substr(b, html.find('\'', b) - b));
            QVERIFY(png);
            const ks::test::PngImage img = ks::test::decodePng(*png);
            QVERIFY2(img.ok, img.error.c_str());
            QCOMPARE(img.width, 1600);
            QCOMPARE(img.height, 960);
        }
    }
};

QTEST_GUILESS_MAIN(TestMemoryExport)
#include "tst_memoryexport.moc"
