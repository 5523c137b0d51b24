// ZeCollector through the real Level Zero loader and tracing layer (Debian's libze1) with our own
// fake GPU driver (tests/fixtures/zefake, loaded via ZE_ENABLE_ALT_DRIVERS). This test is the
// application: it creates lists, events and kernels through the loader and checks what the
// collector reports: kernels, copies and fills with the driver's kernel timestamps, including a
// kernel across the 32-bit counter wrap, and a Kineto-shaped trace through the Profiler.

#include "core/record/api.h"
#include "core/record/profiler.h"

#include <QTest>

#if defined(KS_WITH_LEVEL_ZERO) && defined(KS_ZE_FAKE_DRIVER)
#define KS_ZE_TEST 1
#include "core/collect/zecollector.h"
#include "tracejson.h"

#include <cstdlib>
#include <level_zero/ze_api.h>
#include <thread>

using namespace ks;
using namespace ks::record;
using namespace ks::collect;

namespace {

int64_t mono()
{
    return int64_t(Clock::monotonicNs());
}

const DeviceActivity* find(const std::vector<DeviceActivity>& v, DeviceActivity::Kind k,
                           const std::string& name)
{
    for (const DeviceActivity& a : v)
        if (a.kind == k && a.name == name) return &a;
    return nullptr;
}

const DeviceArg* arg(const DeviceActivity& a, const std::string& key)
{
    for (const DeviceArg& d : a.args)
        if (d.key == key) return &d;
    return nullptr;
}

} // namespace
#endif

class TestZeCollector : public QObject {
    Q_OBJECT
#ifdef KS_ZE_TEST
    std::shared_ptr<ZeCollector> m_collector;
    ze_driver_handle_t m_driver = nullptr;
    ze_device_handle_t m_device = nullptr;
    ze_context_handle_t m_context = nullptr;
    ze_command_list_handle_t m_list = nullptr;
    ze_module_handle_t m_module = nullptr;
    ze_event_pool_handle_t m_tsPool = nullptr, m_plainPool = nullptr;
    uint32_t m_nextEvent = 0;

    ze_kernel_handle_t kernel(const char* name)
    {
        ze_kernel_desc_t d = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, name};
        ze_kernel_handle_t k = nullptr;
        zeKernelCreate(m_module, &d, &k);
        zeKernelSetGroupSize(k, 64, 1, 1);
        return k;
    }
    ze_event_handle_t event(ze_event_pool_handle_t pool)
    {
        ze_event_desc_t d = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, m_nextEvent++ % 64, 0, 0};
        ze_event_handle_t e = nullptr;
        zeEventCreate(pool, &d, &e);
        return e;
    }
    ze_result_t launch(ze_kernel_handle_t k, ze_event_handle_t signal)
    {
        ze_group_count_t g = {16, 2, 1};
        return zeCommandListAppendLaunchKernel(m_list, k, &g, signal, 0, nullptr);
    }
    // The device counter now, and how long until its low 32 bits wrap.
    int64_t nsUntilWrap()
    {
        uint64_t host = 0, dev = 0;
        zeDeviceGetGlobalTimestamps(m_device, &host, &dev);
        return dev >= (uint64_t(1) << 32) ? -1 : int64_t(((uint64_t(1) << 32) - dev) * 80);
    }
#endif

private slots:
#ifndef KS_ZE_TEST
    void initTestCase()
    {
        QSKIP("built without Level Zero (no level-zero headers or loader at configure time)");
    }
#else
    void initTestCase()
    {
        // Both must be in the environment before the process's first zeInit.
        setenv("ZE_ENABLE_ALT_DRIVERS", KS_ZE_FAKE_DRIVER, 1);
        setenv("ZE_FAKE_MS_BEFORE_WRAP", "1500", 1);
        unsetenv("ZE_ENABLE_TRACING_LAYER");
        ZeCollector::requestTracingLayer();
        QCOMPARE(std::string(getenv("ZE_ENABLE_TRACING_LAYER")), std::string("1"));
        ZeCollector::Options o;
        o.pollPeriodMs = 20;
        m_collector = std::make_shared<ZeCollector>(o);
        std::string status;
        QVERIFY2(m_collector->prepare(status), status.c_str());
        QVERIFY2(status.empty(), status.c_str());

        QCOMPARE(zeInit(0), ZE_RESULT_SUCCESS);
        uint32_t n = 1;
        QCOMPARE(zeDriverGet(&n, &m_driver), ZE_RESULT_SUCCESS);
        n = 1;
        QCOMPARE(zeDeviceGet(m_driver, &n, &m_device), ZE_RESULT_SUCCESS);
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
        QCOMPARE(zeContextCreate(m_driver, &cd, &m_context), ZE_RESULT_SUCCESS);
        ze_command_queue_desc_t qd = {};
        qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
        QCOMPARE(zeCommandListCreateImmediate(m_context, m_device, &qd, &m_list), ZE_RESULT_SUCCESS);
        ze_module_desc_t md = {};
        md.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
        QCOMPARE(zeModuleCreate(m_context, m_device, &md, &m_module, nullptr), ZE_RESULT_SUCCESS);
        ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                   ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 64};
        QCOMPARE(zeEventPoolCreate(m_context, &pd, 0, nullptr, &m_tsPool), ZE_RESULT_SUCCESS);
        pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
        QCOMPARE(zeEventPoolCreate(m_context, &pd, 0, nullptr, &m_plainPool), ZE_RESULT_SUCCESS);
    }

    // A kernel started just before the 32-bit counter wraps and ending after it, and one started
    // after the wrap: both keep their length and land where they ran.
    void kernelTimestampsAcrossTheWrap()
    {
        const int64_t untilWrap = nsUntilWrap();
        if (untilWrap < 200'000'000) QSKIP("the fake device counter is already too close to its wrap");
        m_collector->start();
        ze_kernel_handle_t across = kernel("spin_2000000us"); // 2 s: ends after the wrap
        ze_event_handle_t e1 = event(m_tsPool);
        const int64_t t1 = mono();
        QCOMPARE(launch(across, e1), ZE_RESULT_SUCCESS);
        const int64_t t1end = mono();
        QCOMPARE(zeEventHostSynchronize(e1, UINT64_MAX), ZE_RESULT_SUCCESS);
        std::this_thread::sleep_for(std::chrono::nanoseconds(nsUntilWrap() + 20'000'000));
        QVERIFY(nsUntilWrap() < 0);
        ze_kernel_handle_t after = kernel("spin_40us");
        ze_event_handle_t e2 = event(m_tsPool);
        const int64_t t2 = mono();
        QCOMPARE(launch(after, e2), ZE_RESULT_SUCCESS);
        const int64_t t2end = mono();
        QCOMPARE(zeEventHostSynchronize(e2, UINT64_MAX), ZE_RESULT_SUCCESS);
        m_collector->stop();
        std::vector<DeviceActivity> got;
        m_collector->collect(got);
        const DeviceActivity* k1 = find(got, DeviceActivity::Kind::Kernel, "spin_2000000us");
        const DeviceActivity* k2 = find(got, DeviceActivity::Kind::Kernel, "spin_40us");
        QVERIFY(k1 && k2);
        QCOMPARE(k1->endNs - k1->startNs, int64_t(2'000'000'000));
        QCOMPARE(k2->endNs - k2->startNs, int64_t(40'000));
        // The fake runs a kernel inside its append call; allow for tick rounding and the sync
        // point's bracket.
        const int64_t slack = 200'000;
        QVERIFY2(k1->startNs >= t1 - slack && k1->startNs <= t1end + slack,
                 qPrintable(QString::number(k1->startNs - t1)));
        QVERIFY2(k2->startNs >= t2 - slack && k2->startNs <= t2end + slack,
                 qPrintable(QString::number(k2->startNs - t2)));
        QCOMPARE(k1->backend, DeviceActivity::Backend::Xpu);
        QCOMPARE(arg(*k1, "grid")->text, std::string("[16, 2, 1]"));
        QCOMPARE(arg(*k1, "block")->text, std::string("[64, 1, 1]"));
    }

    // Every way an application hands over (or not) a signal event, plus copies and fills.
    void kernelsCopiesAndFills()
    {
        m_collector->start();
        ze_event_handle_t plain = event(m_plainPool);
        QCOMPARE(launch(kernel("spin_50us"), event(m_tsPool)), ZE_RESULT_SUCCESS); // app timestamp event
        QCOMPARE(launch(kernel("spin_20us"), nullptr), ZE_RESULT_SUCCESS);         // no event: ours
        QCOMPARE(launch(kernel("spin_30us"), plain), ZE_RESULT_SUCCESS);           // plain event: swapped
        // The application's own event still signals.
        QCOMPARE(zeEventQueryStatus(plain), ZE_RESULT_SUCCESS);
        void* dev = nullptr;
        void* host = nullptr;
        ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
        QCOMPARE(zeMemAllocDevice(m_context, &dd, 8000, 64, m_device, &dev), ZE_RESULT_SUCCESS);
        QCOMPARE(zeMemAllocHost(m_context, &hd, 8000, 64, &host), ZE_RESULT_SUCCESS);
        QCOMPARE(zeCommandListAppendMemoryCopy(m_list, dev, host, 8000, nullptr, 0, nullptr),
                 ZE_RESULT_SUCCESS);
        const uint8_t pattern = 0xab;
        QCOMPARE(zeCommandListAppendMemoryFill(m_list, dev, &pattern, 1, 1600, nullptr, 0, nullptr),
                 ZE_RESULT_SUCCESS);
        // No sync point from the application: the poll thread reads the events.
        std::vector<DeviceActivity> got;
        for (int i = 0; i < 200 && got.size() < 10; ++i) {
            QTest::qWait(10);
            m_collector->drain(got);
        }
        m_collector->stop();
        m_collector->collect(got);
        QCOMPARE(got.size(), size_t(10)); // 5 appends: 5 runtime calls and 5 GPU operations
        QCOMPARE(m_collector->inFlight(), size_t(0));
        QVERIFY(m_collector->warnings().empty());
        for (const char* name : {"spin_50us", "spin_20us", "spin_30us"})
            QVERIFY2(find(got, DeviceActivity::Kind::Kernel, name), name);
        QCOMPARE(find(got, DeviceActivity::Kind::Kernel, "spin_20us")->endNs -
                     find(got, DeviceActivity::Kind::Kernel, "spin_20us")->startNs,
                 int64_t(20'000));
        const DeviceActivity* copy = find(got, DeviceActivity::Kind::Memcpy, "Memcpy H2D (Host -> Device)");
        QVERIFY(copy);
        QCOMPARE(copy->endNs - copy->startNs, int64_t(8000));
        QCOMPARE(arg(*copy, "bytes")->i, int64_t(8000));
        QCOMPARE(arg(*copy, "memory bandwidth (GB/s)")->d, 1.0);
        const DeviceActivity* fill = find(got, DeviceActivity::Kind::Memset, "Memset (171 -> Device)");
        QVERIFY(fill);
        QCOMPARE(fill->endNs - fill->startNs, int64_t(1600));
        // Launch and GPU work share a correlation id.
        for (const DeviceActivity& a : got) {
            if (a.kind != DeviceActivity::Kind::Runtime) continue;
            QCOMPARE(a.category, std::string("xpu_runtime"));
            int matches = 0;
            for (const DeviceActivity& g : got)
                matches += g.kind != DeviceActivity::Kind::Runtime && g.correlation == a.correlation;
            QCOMPARE(matches, 1);
        }
        zeMemFree(m_context, dev);
        zeMemFree(m_context, host);
    }

    // The Profiler with activity XPU: the kernel carries its range's External id, rows are named
    // for XPU, launch arrows are complete.
    void profilerTraceHasXpuRows()
    {
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::XPU};
        o.collectors.push_back(m_collector);
        Profiler prof(o);
        prof.start();
        {
            KS_RANGE("xpu step");
            QCOMPARE(launch(kernel("spin_10us"), nullptr), ZE_RESULT_SUCCESS);
        }
        QTest::qWait(60);
        prof.stop();
        QVERIFY2(prof.status().empty(), prof.status().empty() ? "" : prof.status()[0].c_str());
        const auto doc = traceJson(*prof.trace());
        int64_t rangeId = 0;
        for (const auto& e : eventsOf(doc, "user_annotation", 'X'))
            if (e["name"] == "xpu step") rangeId = e["args"]["External id"].get<int64_t>();
        QVERIFY(rangeId != 0);
        const auto kernels = eventsOf(doc, "kernel", 'X');
        QCOMPARE(kernels.size(), size_t(1));
        QCOMPARE(kernels[0]["args"]["External id"].get<int64_t>(), rangeId);
        const auto runtime = eventsOf(doc, "xpu_runtime", 'X');
        QCOMPARE(runtime.size(), size_t(1));
        QCOMPARE(runtime[0]["name"].get<std::string>(), std::string("zeCommandListAppendLaunchKernel"));
        QCOMPARE(eventsOf(doc, "ac2g", 's').size(), size_t(1));
        QCOMPARE(eventsOf(doc, "ac2g", 'f').size(), size_t(1));
        bool label = false;
        for (const auto& e : doc["traceEvents"])
            label |= e.value("name", "") == "process_labels" && e["args"].value("labels", "") == "XPU 0";
        QVERIFY(label);
        QVERIFY(doc["deviceProperties"][0]["name"] == "Kinetoscope Fake GPU");
    }
#endif
};

QTEST_GUILESS_MAIN(TestZeCollector)
#include "tst_zecollector.moc"
