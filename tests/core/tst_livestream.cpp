// Both ends of a live session in one process over a real socket: the sender drains the recorder
// and the session's thread builds the trace; a viewer that does not read makes the sender drop and
// count (never block); a target that ignores SIGINT and SIGTERM is still stopped.

#include "core/live/endpoint.h"
#include "core/live/livesession.h"
#include "core/live/streamsender.h"
#include "core/record/api.h"

#include <QTest>
#include <chrono>
#include <sys/socket.h>
#include <unistd.h>

using namespace ks;
using namespace ks::live;

namespace {

const Track* trackNamed(const Trace& t, std::string_view name)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        for (size_t r = 0; r < tr.slices.size(); ++r)
            if (t.str(tr.slices.name(r)) == name) return &tr;
    }
    return nullptr;
}

} // namespace

class TestLiveStream : public QObject {
    Q_OBJECT
private slots:
    void senderToSession()
    {
        Trace trace;
        LiveSession session(trace);
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        QVERIFY(session.endpoint().rfind(privateSocketDir(error), 0) == 0);

        StreamSender sender;
        SenderOptions o;
        o.endpoint = "unix:" + session.endpoint();
        o.program = "tst_livestream";
        QVERIFY2(sender.start(o, error), error.c_str());
        QVERIFY(sender.active());
        const uint32_t outer = record::internName("outer"), inner = record::internName("inner");
        for (int s = 0; s < 5; ++s) {
            record::Range a(outer);
            for (int i = 0; i < 10; ++i)
                record::Range b(inner);
            if (s == 2) record::counter(record::internName("lr"), 0.1);
        }
        sender.step("Optimizer");
        sender.log(LogLevel::Warning, "hello from the target");
        sender.stop();
        QTRY_VERIFY_WITH_TIMEOUT(session.status().counters.events >= 110, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(session.status().counters.steps == 1, 10000);
        const std::vector<StepArrival> steps = session.takeSteps();
        QCOMPARE(steps.size(), size_t(1));
        QVERIFY(steps[0].arrivedMonoNs >= steps[0].endMonoNs);
        // A step reaches the model well within the 50 ms budget even on a busy machine.
        QVERIFY(steps[0].arrivedMonoNs - steps[0].endMonoNs < 1'000'000'000);
        session.stop();
        QVERIFY(session.waitFinished(10000));
        const SessionStatus st = session.status();
        QVERIFY(st.error.empty());
        QCOMPARE(st.counters.senderDropped, uint64_t(0));
        const Track* t = trackNamed(trace, "outer");
        QVERIFY(t);
        size_t outers = 0, inners = 0;
        for (size_t r = 0; r < t->slices.size(); ++r) {
            const std::string_view n = trace.str(t->slices.name(r));
            outers += n == "outer";
            inners += n == "inner" && t->slices.depth(r) == 1;
            QVERIFY(!t->slices.isOpen(r));
        }
        QCOMPARE(outers, size_t(5));
        QCOMPARE(inners, size_t(50));
        bool logged = false;
        for (const OutputLine& l : session.takeOutput())
            logged |= l.source == OutputLine::Source::Target && l.text == "hello from the target";
        QVERIFY(logged);
        QCOMPARE(std::string(trace.str(trace.process(t->process).name)), std::string("tst_livestream"));
    }

    void aViewerThatDoesNotReadMakesTheSenderDrop()
    {
        std::string error;
        const std::string path = newEndpointPath("stall", error);
        const int listener = listenUnix(path, error);
        QVERIFY2(listener >= 0, error.c_str());
        // Nobody accepts or reads: the connection sits in the backlog and its buffer fills.
        StreamSender sender;
        SenderOptions o;
        o.endpoint = path;
        o.maxPendingBytes = 256 * 1024;
        QVERIFY2(sender.start(o, error), error.c_str());
        const uint32_t name = record::internName("flood");
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 2'000'000; ++i) {
            record::rangeBegin(name);
            record::rangeEnd();
            if (i % 100000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QTRY_VERIFY_WITH_TIMEOUT(sender.stats().eventsDropped > 0, 10000);
        // Recording never waited for the socket: 4M events take well under a second of hot path.
        QVERIFY2(seconds < 5.0, qPrintable(QString::number(seconds)));
        QVERIFY(sender.stats().batchesDropped > 0);
        sender.stop();
        ::close(listener);
        ::unlink(path.c_str());
    }

    void stubbornTargetsAreStopped()
    {
        Trace trace;
        LiveSession session(trace);
        session.setStopTimeouts(300, 300);
        LaunchRequest r;
        r.argv = {"/bin/sh", "-c", "trap '' INT TERM; echo ready; while :; do sleep 0.05; done"};
        std::string error;
        QVERIFY2(session.launch(r, error), error.c_str());
        std::string out;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const OutputLine& l : session.takeOutput())
                    out += l.text + "\n";
                return out.find("ready") != std::string::npos;
            }(),
            10000);
        session.stop();
        QVERIFY(session.waitFinished(10000));
        for (const OutputLine& l : session.takeOutput())
            out += l.text + "\n";
        QVERIFY2(out.find("SIGTERM sent") != std::string::npos, out.c_str());
        QVERIFY2(out.find("SIGKILL sent") != std::string::npos, out.c_str());
        const SessionStatus st = session.status();
        QCOMPARE(st.exitSignal, 9);
        QCOMPARE(QString::fromStdString(st.exit), QStringLiteral("killed by signal 9 (SIGKILL)"));
        // The /proc sampler saw the process while it ran.
        QVERIFY(trace.counterCount() >= 2);
    }

    void launchErrorsAreClear()
    {
        Trace trace;
        LiveSession session(trace);
        LaunchRequest r;
        std::string error;
        r.argv = {"/usr/bin/python3", "/definitely/not/here.py"};
        QVERIFY(!session.launch(r, error));
        QVERIFY2(error.find("script not found: /definitely/not/here.py") != std::string::npos, error.c_str());
        LiveSession other(trace);
        r.argv = {"not-a-program-anywhere"};
        QVERIFY(!other.launch(r, error));
        QVERIFY2(error.find("program not found") != std::string::npos, error.c_str());
        r.argv = {"/bin/true"};
        r.workdir = "/no/such/dir";
        LiveSession third(trace);
        QVERIFY(!third.launch(r, error));
        QVERIFY2(error.find("working directory does not exist") != std::string::npos, error.c_str());
    }
};

QTEST_MAIN(TestLiveStream)
#include "tst_livestream.moc"
