// CUPTI record decoding. Buffers are built by hand in the CUDA 13 layouts and walked by the real
// cuptiActivityGetNextRecord of the toolkit's libcupti.so.13 (it works without a driver); CUDA 12
// layouts are written as raw bytes at the offsets measured on the CUDA 12 structs, since a 13
// libcupti walks records by its own sizes.

#include <QTest>

#ifdef KS_WITH_CUPTI
#include "core/collect/cuptidecoder.h"
#include "core/collect/cuptilibrary.h"

#include <cstring>
#include <cupti.h>
#include <map>

using namespace ks::collect;
using ks::record::DeviceActivity;
using ks::record::DeviceArg;

namespace {

// Records packed the way CUPTI packs them: each one 8-byte aligned, one after the other.
class BufferBuilder {
public:
    template <typename T>
    void add(const T& rec)
    {
        const size_t at = m_bytes.size();
        m_bytes.resize(at + ((sizeof rec + 7) & ~size_t(7)));
        std::memcpy(m_bytes.data() + at, &rec, sizeof rec);
    }
    uint8_t* data() { return m_bytes.data(); }
    size_t size() const { return m_bytes.size(); }

private:
    std::vector<uint8_t> m_bytes;
};

std::map<std::string, const DeviceArg*> argMap(const DeviceActivity& a)
{
    std::map<std::string, const DeviceArg*> m;
    for (const DeviceArg& d : a.args)
        m[d.key] = &d;
    return m;
}

template <typename T>
void put(std::vector<uint8_t>& b, size_t offset, T v)
{
    std::memcpy(b.data() + offset, &v, sizeof v);
}

} // namespace
#endif

class TestCuptiDecoder : public QObject {
    Q_OBJECT
#ifdef KS_WITH_CUPTI
    std::unique_ptr<CuptiLibrary> m_lib;
#endif
private slots:
#ifndef KS_WITH_CUPTI
    void initTestCase()
    {
        QSKIP("built without CUPTI (no CUDA toolkit at configure time)");
    }
#else
    void initTestCase()
    {
        std::string why;
        m_lib = CuptiLibrary::load(why);
        QVERIFY2(m_lib, why.c_str());
        QVERIFY(m_lib->version() >= 130000);
    }

    void realIteratorWalksCuda13Records()
    {
        BufferBuilder b;
        CUpti_ActivityExternalCorrelation x{};
        x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
        x.externalId = 4242;
        x.correlationId = 11;
        b.add(x);
        CUpti_ActivityExternalCorrelation kinetos{};
        kinetos.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        kinetos.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0; // Kineto's: not ours
        kinetos.externalId = 9;
        kinetos.correlationId = 11;
        b.add(kinetos);
        CUpti_ActivityAPI api{};
        api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
        api.start = 1000;
        api.end = 1400;
        api.processId = 77;
        api.threadId = 78;
        api.correlationId = 11;
        b.add(api);
        CUpti_ActivityKernel10 k{};
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k.start = 2000;
        k.end = 2750;
        k.deviceId = 1;
        k.contextId = 3;
        k.streamId = 13;
        k.correlationId = 11;
        k.name = "kernel";
        k.gridX = 4;
        k.gridY = 2;
        k.gridZ = 1;
        k.blockX = 128;
        k.blockY = k.blockZ = 1;
        k.registersPerThread = 40;
        k.staticSharedMemory = 1024;
        k.dynamicSharedMemory = 2048;
        b.add(k);
        CUpti_ActivityMemcpy6 c{};
        c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
        c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        c.bytes = 4096;
        c.start = 3000;
        c.end = 3512;
        c.deviceId = 1;
        c.contextId = 3;
        c.streamId = 13;
        c.correlationId = 12;
        b.add(c);
        CUpti_ActivityMemset4 s{};
        s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
        s.bytes = 64;
        s.start = 4000;
        s.end = 4000; // zero duration: no bandwidth, as Kineto
        s.deviceId = 1;
        s.contextId = 3;
        s.streamId = 14;
        s.correlationId = 13;
        s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        b.add(s);
        CUpti_ActivitySynchronization2 y{};
        y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
        y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        y.start = 5000;
        y.end = 5100;
        y.correlationId = 14;
        y.contextId = 3;
        y.streamId = 13;
        y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        b.add(y);
        CUpti_ActivityOverhead3 o{};
        o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
        o.start = 6000;
        o.end = 6050;
        b.add(o);
        CUpti_ActivityMemory4 m{};
        m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
        m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
        m.address = 0x7f0000001000;
        m.bytes = 1 << 20;
        m.timestamp = 7000;
        m.deviceId = 1;
        m.correlationId = 15;
        b.add(m);

        CuptiDecoder dec;
        std::string why;
        QVERIFY(dec.setVersion(m_lib->version(), why));
        QCOMPARE(dec.generation(), CuptiDecoder::Generation::Cuda13);
        dec.setFacade(m_lib.get());
        std::vector<CuptiDecoder::Decoded> out;
        uint8_t* rec = nullptr;
        int walked = 0;
        int r;
        while ((r = m_lib->nextRecord(b.data(), b.size(), &rec)) == CUPTI_SUCCESS) {
            ++walked;
            out.push_back(dec.decode(rec));
        }
        QCOMPARE(r, int(CUPTI_ERROR_MAX_LIMIT_REACHED));
        QCOMPARE(walked, 9);
        using T = CuptiDecoder::Decoded::Type;
        QCOMPARE(out[0].type, T::External);
        QCOMPARE(out[0].externalId, int64_t(4242));
        QCOMPARE(out[0].correlation, int64_t(11));
        QCOMPARE(out[1].type, T::Skipped);

        const DeviceActivity& a = out[2].activity;
        QCOMPARE(a.kind, DeviceActivity::Kind::Runtime);
        QCOMPARE(a.name, std::string("cudaLaunchKernel")); // the real CUPTI name table, suffix cut
        QCOMPARE(a.startNs, int64_t(1000));
        QCOMPARE(a.endNs, int64_t(1400));
        QCOMPARE(a.hostTid, uint64_t(78));
        QVERIFY(a.flowStart);
        QCOMPARE(a.args.size(), size_t(2));
        QCOMPARE(a.args[0].key, std::string("cbid"));
        QCOMPARE(a.args[0].i, int64_t(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));

        const DeviceActivity& kd = out[3].activity;
        QCOMPARE(kd.kind, DeviceActivity::Kind::Kernel);
        QCOMPARE(kd.name, std::string("Kernel"));
        QCOMPARE(kd.startNs, int64_t(2000));
        QCOMPARE(kd.endNs, int64_t(2750));
        QCOMPARE(kd.device, 1);
        QCOMPARE(kd.stream, int64_t(13));
        QCOMPARE(kd.correlation, int64_t(11));
        auto ka = argMap(kd);
        QCOMPARE(ka["registers per thread"]->i, int64_t(40));
        QCOMPARE(ka["shared memory"]->i, int64_t(3072));
        QCOMPARE(ka["context"]->i, int64_t(3));
        QCOMPARE(ka["grid"]->text, std::string("[4, 2, 1]"));
        QCOMPARE(ka["block"]->text, std::string("[128, 1, 1]"));
        QVERIFY(!ka.count("blocks per SM")); // no driver: no device limits, no occupancy guess

        const DeviceActivity& cd = out[4].activity;
        QCOMPARE(cd.kind, DeviceActivity::Kind::Memcpy);
        QCOMPARE(cd.name, std::string("Memcpy HtoD (Pageable -> Device)"));
        auto ca = argMap(cd);
        QCOMPARE(ca["bytes"]->i, int64_t(4096));
        QCOMPARE(ca["memory bandwidth (GB/s)"]->d, 8.0);

        const DeviceActivity& sd = out[5].activity;
        QCOMPARE(sd.name, std::string("Memset (Device)"));
        QCOMPARE(sd.stream, int64_t(14));
        QVERIFY(!argMap(sd).count("memory bandwidth (GB/s)"));

        const DeviceActivity& yd = out[6].activity;
        QCOMPARE(yd.kind, DeviceActivity::Kind::Sync);
        QCOMPARE(yd.name, std::string("Stream Sync"));
        QCOMPARE(yd.device, 1); // from the context's kernels
        QCOMPARE(argMap(yd)["cuda_sync_kind"]->text, std::string("Stream Sync"));

        QCOMPARE(out[7].activity.kind, DeviceActivity::Kind::Overhead);
        QCOMPARE(out[7].activity.name, std::string("Buffer Flush"));

        const DeviceActivity& md = out[8].activity;
        QCOMPARE(md.kind, DeviceActivity::Kind::Memory);
        QCOMPARE(md.bytes, -int64_t(1 << 20));
        QCOMPARE(md.address, uint64_t(0x7f0000001000));
        QCOMPARE(md.startNs, int64_t(7000));
    }

    // CUDA 12 (CUPTI API 19-28): Kernel9 and Memcpy5 as raw bytes. The offsets are the ones
    // measured on those structs (live-attach spec §1.1), written out here on purpose.
    void cuda12LayoutsFromRawBytes()
    {
        CuptiDecoder dec;
        std::string why;
        QVERIFY(dec.setVersion(24, why)); // CUDA 12.6
        QCOMPARE(dec.generation(), CuptiDecoder::Generation::Cuda12);
        std::vector<uint8_t> k(208, 0);
        const char* name = "ampere_sgemm_128x64_nn";
        put<uint32_t>(k, 0, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        put<uint16_t>(k, 6, 64);
        put<uint64_t>(k, 16, 1'700'000'000'000'001'000ull);
        put<uint64_t>(k, 24, 1'700'000'000'000'009'000ull);
        put<uint32_t>(k, 40, 2);
        put<uint32_t>(k, 44, 5);
        put<uint32_t>(k, 48, 21);
        put<int32_t>(k, 52, 80);
        put<int32_t>(k, 56, 1);
        put<int32_t>(k, 60, 1);
        put<int32_t>(k, 64, 128);
        put<int32_t>(k, 68, 1);
        put<int32_t>(k, 72, 1);
        put<int32_t>(k, 76, 256);
        put<int32_t>(k, 80, 0);
        put<uint32_t>(k, 92, 314);
        put<const char*>(k, 104, name);
        const auto d = dec.decode(k.data());
        QCOMPARE(d.type, CuptiDecoder::Decoded::Type::Activity);
        QCOMPARE(d.activity.name, std::string(name));
        QCOMPARE(d.activity.startNs, int64_t(1'700'000'000'000'001'000));
        QCOMPARE(d.activity.endNs, int64_t(1'700'000'000'000'009'000));
        QCOMPARE(d.activity.device, 2);
        QCOMPARE(d.activity.stream, int64_t(21));
        QCOMPARE(d.activity.correlation, int64_t(314));
        auto ka = argMap(d.activity);
        QCOMPARE(ka["context"]->i, int64_t(5));
        QCOMPARE(ka["registers per thread"]->i, int64_t(64));
        QCOMPARE(ka["shared memory"]->i, int64_t(256));
        QCOMPARE(ka["grid"]->text, std::string("[80, 1, 1]"));

        std::vector<uint8_t> c(88, 0);
        put<uint32_t>(c, 0, CUPTI_ACTIVITY_KIND_MEMCPY);
        put<uint8_t>(c, 4, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
        put<uint8_t>(c, 5, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
        put<uint8_t>(c, 6, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
        put<uint64_t>(c, 8, 1000);
        put<uint64_t>(c, 16, 500);
        put<uint64_t>(c, 24, 1500);
        put<uint32_t>(c, 32, 2);
        put<uint32_t>(c, 36, 5);
        put<uint32_t>(c, 40, 22);
        put<uint32_t>(c, 44, 315);
        const auto m = dec.decode(c.data());
        QCOMPARE(m.activity.name, std::string("Memcpy DtoH (Device -> Pinned)"));
        QCOMPARE(m.activity.stream, int64_t(22));
        QCOMPARE(m.activity.correlation, int64_t(315));
        QCOMPARE(argMap(m.activity)["memory bandwidth (GB/s)"]->d, 1.0);
    }

    void unsupportedVersionsSayWhy()
    {
        CuptiDecoder dec;
        std::string why;
        QVERIFY(!dec.setVersion(18, why)); // CUDA 11.8
        QVERIFY2(why.find("CUDA 11 or older") != std::string::npos, why.c_str());
        QVERIFY(dec.setVersion(130100, why)); // 13.1: Kernel11 shares the prefix read here
        QCOMPARE(dec.generation(), CuptiDecoder::Generation::Cuda13);
    }

    void apiNamesLoseTheirVersionSuffix()
    {
        QCOMPARE(CuptiDecoder::apiName("cudaLaunchKernel_v7000"), std::string("cudaLaunchKernel"));
        QCOMPARE(CuptiDecoder::apiName("cudaLaunchKernel_ptsz_v7000"), std::string("cudaLaunchKernel_ptsz"));
        QCOMPARE(CuptiDecoder::apiName("cuLaunchKernel"), std::string("cuLaunchKernel"));
        QCOMPARE(CuptiDecoder::apiName("cuMemcpy_v2"), std::string("cuMemcpy"));
    }
#endif
};

QTEST_GUILESS_MAIN(TestCuptiDecoder)
#include "tst_cuptidecoder.moc"
