// HTA's queue length and memcpy bandwidth as counter tracks on the timeline: computed with the
// document's load-time analyses and laid out in the GPU's group, below its streams.

#include "core/io/tracereader.h"
#include "ui/document/tracedocument.h"
#include "ui/timeline/timelineview.h"

#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

// Stream 7: two kernels launched at 10 and 12 µs, running 20-25 and 25-30; stream 8: a 2 GB/s
// host-to-device copy at 40-44 µs launched at 35.
const char* const kTrace = R"json({"traceEvents": [
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":1,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":1,"args":{"correlation":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":35,"dur":1,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":20,"dur":5,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_b","pid":0,"tid":7,"ts":25,"dur":5,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":8,"ts":40,"dur":4,
 "args":{"device":0,"stream":8,"correlation":3,"memory bandwidth (GB/s)":2.0}}
]})json";

} // namespace

class TestHtaCounters : public QObject {
    Q_OBJECT
private slots:
    void countersSitWithTheGpu()
    {
        LoadResult r = loadTraceData(kTrace);
        QVERIFY(r.trace);
        const std::shared_ptr<TraceDocument> doc =
            makeDocument(std::move(r.trace), QStringLiteral("synthetic"));
        QCOMPARE(doc->htaCounters.size(), size_t(3));

        TimelineView v;
        v.setDocument(doc);
        const TrackLayout& l = v.renderer().layout();
        std::vector<QString> labels;
        int gpuGroup = -1;
        for (size_t g = 0; g < l.groups().size(); ++g)
            if (l.groups()[g].gpu) gpuGroup = int(g);
        QVERIFY(gpuGroup >= 0);
        const TrackLayout::Row* queue = nullptr;
        for (const auto& row : l.rows()) {
            if (row.kind != TrackLayout::RowKind::Counter) continue;
            QCOMPARE(row.group, gpuGroup);
            labels.push_back(row.label);
            if (row.label == QStringLiteral("Queue length · stream 7")) queue = &row;
        }
        QCOMPARE(labels, (std::vector<QString>{QStringLiteral("Queue length · stream 7"),
                                               QStringLiteral("Queue length · stream 8"),
                                               QStringLiteral("Memcpy HtoD bandwidth (GB/s)")}));
        QVERIFY(queue && queue->counter);
        // 1 and 2 queued at 10 and 12 µs, then 1 and 0 as the kernels start.
        QCOMPARE(queue->counter->size(), size_t(4));
        QCOMPARE(queue->counter->value(1), 2.0);
        QCOMPARE(queue->counter->ts(3), TimeNs(25'000));
        QVERIFY(!queue->bytes);
    }
};

QTEST_MAIN(TestHtaCounters)
#include "tst_htacounters.moc"
