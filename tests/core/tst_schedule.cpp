// Checks ks::record::Schedule and ScheduleDriver against real torch.profiler behaviour recorded by
// tests/scripts/gen_schedule.py (Debian torch 1.13), plus the skip_first_wait sequences tabulated in
// shared/specs/torch-profiler-exports.md §5 (torch 1.13 predates skip_first_wait).

#include "core/record/schedule.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ks::record;
using namespace Qt::StringLiterals;

namespace {

Schedule fromJson(const QJsonObject& p)
{
    Schedule s;
    s.wait = p.value(u"wait"_s).toInt();
    s.warmup = p.value(u"warmup"_s).toInt();
    s.active = p.value(u"active"_s).toInt();
    s.repeat = p.value(u"repeat"_s).toInt(0);
    s.skipFirst = p.value(u"skip_first"_s).toInt(0);
    return s;
}

QString describe(const QJsonObject& p)
{
    return QString::fromUtf8(QJsonDocument(p).toJson(QJsonDocument::Compact));
}

// Parses "N W R S" style sequences.
std::vector<ProfilerAction> sequence(const char* text)
{
    std::vector<ProfilerAction> out;
    for (const char* p = text; *p; ++p) {
        switch (*p) {
        case 'N':
            out.push_back(ProfilerAction::None);
            break;
        case 'W':
            out.push_back(ProfilerAction::Warmup);
            break;
        case 'R':
            out.push_back(ProfilerAction::Record);
            break;
        case 'S':
            out.push_back(ProfilerAction::RecordAndSave);
            break;
        default:
            break;
        }
    }
    return out;
}

} // namespace

class TestSchedule : public QObject {
    Q_OBJECT

    QJsonObject m_data;

private slots:
    void initTestCase()
    {
        QFile f(QStringLiteral(KS_TEST_DATA_DIR "/schedule/torch113_schedule.json"));
        QVERIFY2(f.open(QIODevice::ReadOnly), "missing schedule test data");
        m_data = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(m_data.value(u"grid"_s).toArray().size() > 100);
    }

    void actionsMatchTorchForTheWholeGrid()
    {
        const int steps = m_data.value(u"steps"_s).toInt();
        for (const auto& v : m_data.value(u"grid"_s).toArray()) {
            const QJsonObject o = v.toObject();
            const Schedule s = fromJson(o.value(u"params"_s).toObject());
            QVERIFY(!s.validate());
            const QJsonArray expected = o.value(u"actions"_s).toArray();
            QCOMPARE(expected.size(), steps);
            for (int i = 0; i < steps; ++i) {
                if (int(s(i)) != expected[i].toInt())
                    QFAIL(qPrintable(QStringLiteral("step %1 of %2: got %3, torch %4")
                                         .arg(i)
                                         .arg(describe(o.value(u"params"_s).toObject()))
                                         .arg(int(s(i)))
                                         .arg(expected[i].toInt())));
            }
        }
    }

    void skipFirstWaitMatchesSpecTables()
    {
        const Schedule a{5, 1, 3, 2, 10, 1};
        const auto expA = sequence("NNNNNNNNNN WRRS NNNNN WRRS NNNNNNNN");
        for (size_t i = 0; i < expA.size(); ++i)
            QCOMPARE(a(int64_t(i)), expA[i]);
        Schedule b{2, 1, 2, 2, 1, 1};
        const auto expB = sequence("N WRS NN WRS NNNN");
        for (size_t i = 0; i < expB.size(); ++i)
            QCOMPARE(b(int64_t(i)), expB[i]);
        // Without skip_first_wait the spec's second table: W at 15, R R S at 16-18, W at 24, S at 27.
        Schedule c{5, 1, 3, 2, 10, 0};
        QCOMPARE(c(14), ProfilerAction::None);
        QCOMPARE(c(15), ProfilerAction::Warmup);
        QCOMPARE(c(18), ProfilerAction::RecordAndSave);
        QCOMPARE(c(24), ProfilerAction::Warmup);
        QCOMPARE(c(27), ProfilerAction::RecordAndSave);
        QCOMPARE(c(28), ProfilerAction::None);
        // test_profiler.py's reference: skip_first=2, wait=1, warmup=1, active=2, repeat=2.
        Schedule d{1, 1, 2, 2, 2, 0};
        const auto expD = sequence("NNNWRSNWRSNNNN");
        for (size_t i = 0; i < expD.size(); ++i)
            QCOMPARE(d(int64_t(i)), expD[i]);
    }

    void driverRunsTheSameHooksAsTorch()
    {
        for (const auto& v : m_data.value(u"drives"_s).toArray()) {
            const QJsonObject o = v.toObject();
            const Schedule s = fromJson(o.value(u"params"_s).toObject());
            QJsonArray log;
            ScheduleDriver* self = nullptr;
            auto entry = [&](const char* what) {
                log.append(QJsonArray{QString::fromLatin1(what), int(self->stepNum())});
            };
            ScheduleDriver::Hooks hooks;
            hooks.prepare = [&] { entry("prepare"); };
            hooks.start = [&] { entry("start"); };
            hooks.stop = [&] { entry("stop"); };
            hooks.ready = [&] { entry("ready"); };
            hooks.warn = [&](const char* msg) {
                log.append(QJsonArray{u"warn"_s, QString::fromUtf8(msg), int(self->stepNum())});
            };
            ScheduleDriver driver(s, hooks);
            self = &driver;
            driver.start();
            for (int i = 0; i < o.value(u"steps"_s).toInt(); ++i)
                driver.step();
            driver.stop();
            QCOMPARE(QJsonDocument(log).toJson(QJsonDocument::Compact),
                     QJsonDocument(o.value(u"log"_s).toArray()).toJson(QJsonDocument::Compact));
        }
    }

    void stepMarkersFollowTheStepNumber()
    {
        std::vector<std::pair<char, int64_t>> marks;
        ScheduleDriver::Hooks hooks;
        hooks.openStep = [&](int64_t n) { marks.push_back({'o', n}); };
        hooks.closeStep = [&] { marks.push_back({'c', -1}); };
        ScheduleDriver driver(Schedule{1, 1, 1, 1, 0, 0}, hooks);
        driver.start();
        driver.step();
        driver.step();
        driver.stop();
        const std::vector<std::pair<char, int64_t>> expected = {{'o', 0},  {'c', -1}, {'o', 1},
                                                                {'c', -1}, {'o', 2},  {'c', -1}};
        QCOMPARE(marks, expected);

        // No schedule: always recording, no step markers (torch's record_steps=False).
        marks.clear();
        int starts = 0;
        hooks.start = [&] { ++starts; };
        ScheduleDriver plain(hooks);
        plain.start();
        plain.step();
        plain.stop();
        QVERIFY(marks.empty());
        QCOMPARE(starts, 1);
        QCOMPARE(plain.currentAction(), ProfilerAction::Record);
    }

    void validationRejectsWhatTorchRejects()
    {
        QVERIFY((Schedule{0, 0, 0, 0, 0, 0}).validate().has_value());
        QVERIFY((Schedule{-1, 0, 1, 0, 0, 0}).validate().has_value());
        QVERIFY((Schedule{0, -1, 1, 0, 0, 0}).validate().has_value());
        QVERIFY((Schedule{0, 0, 1, -1, 0, 0}).validate().has_value());
        QVERIFY((Schedule{0, 0, 1, 0, -1, 0}).validate().has_value());
        QVERIFY(!(Schedule{0, 0, 1, 0, 0, 0}).validate().has_value());
        QVERIFY((Schedule{0, 0, 1, 0, 0, 0}).warnsAboutWarmup());
    }
};

QTEST_GUILESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
