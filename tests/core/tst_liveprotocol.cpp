// The live protocol's byte layer: every frame survives encode/decode, the stream cutter reassembles
// frames from arbitrary pieces, and garbage, truncation and inconsistent payloads are refused with
// a reason instead of being read.

#include "core/live/frames.h"
#include "core/live/framestream.h"
#include "core/live/steptracker.h"

#include <QTest>

using namespace ks;
using namespace ks::live;

namespace {

std::vector<Frame> cut(const std::string& bytes, size_t piece, FrameStream& s, std::vector<std::string>& keep)
{
    std::vector<Frame> out;
    for (size_t i = 0; i < bytes.size(); i += piece) {
        s.feed(bytes.data() + i, std::min(piece, bytes.size() - i));
        Frame f;
        while (s.next(f)) {
            keep.emplace_back(f.payload);
            out.push_back(Frame{f.type, keep.back()});
        }
    }
    return out;
}

} // namespace

class TestLiveProtocol : public QObject {
    Q_OBJECT
private slots:
    void framesRoundTrip()
    {
        std::string bytes;
        HelloFrame h;
        h.pid = 1234;
        h.ppid = 1;
        h.monotonicNs = 42;
        h.realtimeNs = 43;
        h.host = "box";
        h.program = "train.py";
        h.library = "lib";
        h.options = "{\"mode\": \"native\"}";
        encodeHello(bytes, h);
        encodeStrings(bytes, {{7, "forward"}, {9, "backward"}});
        encodeThread(bytes, 77, "MainThread");
        WireRecord recs[2] = {{100, 1, 0, 0, 7, 0, 0}, {200, 2, 0, 0, 0, 0, 0}};
        encodeEvents(bytes, 77, recs, 2);
        encodePayload(bytes, 5, "{\"a\": 1}");
        encodeStep(bytes, StepFrame{3, 10, 20, 77});
        encodeLog(bytes, LogFrame{LogLevel::Warning, 11, "careful"});
        WindowFrame w;
        w.firstStep = 3;
        w.lastStep = 4;
        w.startNs = 5;
        w.endNs = 6;
        w.path = "/tmp/w.json";
        w.removeAfter = true;
        w.anchors = {{3, 100}, {4, 200}};
        encodeWindow(bytes, w);
        record::DeviceActivity a;
        a.kind = record::DeviceActivity::Kind::Memcpy;
        a.startNs = 1;
        a.endNs = 2;
        a.device = 1;
        a.stream = 7;
        a.name = "Memcpy HtoD";
        a.correlation = 99;
        a.args = {record::DeviceArg::integer("bytes", 4096), record::DeviceArg::json("grid", "[1, 2, 1]")};
        std::map<std::string, uint32_t> ids;
        std::vector<std::string> byId(1);
        encodeDevice(bytes, {a}, [&](const std::string& s) {
            auto [it, fresh] = ids.emplace(s, uint32_t(byId.size()));
            if (fresh) byId.push_back(s);
            return it->second;
        });
        encodeStats(bytes, StatsFrame{1, 2, 3, 4});
        encodeInfo(bytes, "torch", "1.13.1");
        encodeGap(bytes, GapFrame{77, 1, 2, 300});
        encodeGoodbye(bytes, 0, StatsFrame{5, 6, 7, 8});

        FrameStream s;
        std::vector<std::string> keep;
        keep.reserve(64);
        // One byte at a time: frames only come out whole.
        const std::vector<Frame> frames = cut(bytes, 1, s, keep);
        QVERIFY(!s.failed());
        QCOMPARE(s.pending(), size_t(0));
        QCOMPARE(frames.size(), size_t(13));
        std::string error;
        HelloFrame h2;
        QVERIFY(decodeHello(frames[0].payload, h2, error));
        QCOMPARE(h2.pid, 1234u);
        QCOMPARE(h2.program, std::string("train.py"));
        QCOMPARE(h2.options, h.options);
        std::vector<std::pair<uint32_t, std::string_view>> defs;
        QVERIFY(decodeStrings(frames[1].payload, defs, error));
        QCOMPARE(defs.size(), size_t(2));
        QCOMPARE(defs[1].second, std::string_view("backward"));
        uint64_t tid;
        std::string_view name;
        QVERIFY(decodeThread(frames[2].payload, tid, name, error));
        QCOMPARE(name, std::string_view("MainThread"));
        std::vector<WireRecord> out;
        QVERIFY(decodeEvents(frames[3].payload, tid, out, error));
        QCOMPARE(out.size(), size_t(2));
        QCOMPARE(out[1].timeNs, int64_t(200));
        StepFrame st;
        QVERIFY(decodeStep(frames[5].payload, st, error));
        QCOMPARE(st.number, int64_t(3));
        LogFrame lg;
        QVERIFY(decodeLog(frames[6].payload, lg, error));
        QCOMPARE(lg.text, std::string("careful"));
        QVERIFY(lg.level == LogLevel::Warning);
        WindowFrame w2;
        QVERIFY(decodeWindow(frames[7].payload, w2, error));
        QCOMPARE(w2.anchors.size(), size_t(2));
        QCOMPARE(w2.anchors[1].second, int64_t(200));
        QVERIFY(w2.removeAfter);
        std::vector<record::DeviceActivity> acts;
        QVERIFY(decodeDevice(
            frames[8].payload, acts,
            [&](uint32_t id, std::string_view& s) {
                if (id == 0 || id >= byId.size()) return false;
                s = byId[id];
                return true;
            },
            error));
        QCOMPARE(acts.size(), size_t(1));
        QCOMPARE(acts[0].name, std::string("Memcpy HtoD"));
        QCOMPARE(acts[0].args[1].text, std::string("[1, 2, 1]"));
        QCOMPARE(acts[0].args[0].i, int64_t(4096));
        StatsFrame sf;
        int32_t reason;
        QVERIFY(decodeGoodbye(frames[12].payload, reason, sf, error));
        QCOMPARE(sf.eventsDropped, uint64_t(6));
    }

    void garbageHeadersStopTheStream()
    {
        FrameStream s;
        const uint32_t huge = 1u << 30;
        const uint16_t type = 4, flags = 0;
        std::string bytes(reinterpret_cast<const char*>(&huge), 4);
        bytes.append(reinterpret_cast<const char*>(&type), 2);
        bytes.append(reinterpret_cast<const char*>(&flags), 2);
        s.feed(bytes.data(), bytes.size());
        Frame f;
        QVERIFY(!s.next(f));
        QVERIFY(s.failed());
        QVERIFY(QString::fromStdString(s.error()).contains(QStringLiteral("announces 1073741824 bytes")));

        FrameStream z;
        const char zeros[16] = {};
        z.feed(zeros, sizeof zeros);
        QVERIFY(!z.next(f));
        QVERIFY(z.failed()); // type 0 is no frame
    }

    void truncatedPayloadsAreRefused()
    {
        std::string error;
        std::string hello;
        HelloFrame h;
        h.program = "x";
        encodeHello(hello, h);
        const std::string_view payload = std::string_view(hello).substr(kHeaderBytes);
        for (size_t n = 0; n < payload.size(); ++n) {
            HelloFrame out;
            QVERIFY2(!decodeHello(payload.substr(0, n), out, error), qPrintable(QString::number(n)));
        }
        std::string bad = hello;
        bad[kHeaderBytes] = 'X';
        HelloFrame out;
        QVERIFY(!decodeHello(std::string_view(bad).substr(kHeaderBytes), out, error));
        QVERIFY(QString::fromStdString(error).contains(QStringLiteral("not a Kinetoscope live stream")));

        std::string step;
        encodeStep(step, StepFrame{1, 20, 10, 0}); // ends before it starts
        StepFrame sf;
        QVERIFY(!decodeStep(std::string_view(step).substr(kHeaderBytes), sf, error));

        std::string ev;
        WireRecord r{1, 1, 0, 0, 0, 0, 0};
        encodeEvents(ev, 1, &r, 1);
        std::vector<WireRecord> recs;
        uint64_t tid;
        QVERIFY(!decodeEvents(std::string_view(ev).substr(kHeaderBytes, ev.size() - kHeaderBytes - 1), tid,
                              recs, error));
        r.type = 42;
        ev.clear();
        encodeEvents(ev, 1, &r, 1);
        QVERIFY(!decodeEvents(std::string_view(ev).substr(kHeaderBytes), tid, recs, error));
        QVERIFY(QString::fromStdString(error).contains(QStringLiteral("unknown event type 42")));
        // Operator ids (9) travel since 1.1, call stacks (8) since 1.2; 0 and 10 are no type.
        for (uint8_t type : {9, 8}) {
            r.type = type;
            ev.clear();
            encodeEvents(ev, 1, &r, 1);
            QVERIFY(decodeEvents(std::string_view(ev).substr(kHeaderBytes), tid, recs, error));
        }
        for (uint8_t type : {0, 10}) {
            r.type = type;
            ev.clear();
            encodeEvents(ev, 1, &r, 1);
            QVERIFY(!decodeEvents(std::string_view(ev).substr(kHeaderBytes), tid, recs, error));
        }
    }

    void stepsCountLikeKinetoStepTracker()
    {
        StepTracker t;
        int64_t done = -1;
        // Two optimizers and a profiler, each stepping once per iteration.
        for (int it = 0; it < 5; ++it) {
            int advanced = 0;
            for (const char* r : {"opt_d", "opt_g", "prof"})
                advanced += t.increment(r, done) ? 1 : 0;
            QCOMPARE(advanced, 1);
            QCOMPARE(done, int64_t(it));
        }
        QCOMPARE(t.current(), int64_t(5));
        // An optimizer built later joins the step in progress instead of counting from zero.
        QVERIFY(!t.increment("late", done));
        QVERIFY(t.increment("late", done));
        QCOMPARE(done, int64_t(5));
    }
};

QTEST_MAIN(TestLiveProtocol)
#include "tst_liveprotocol.moc"
