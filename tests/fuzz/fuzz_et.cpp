// libFuzzer target for execution traces: any bytes must give an op graph or a one-line error, never
// a crash, a hang or a sanitizer report, and no control bytes in the messages. A graph that loads
// is queried the way the details panel and `kinetoscope info --et-ops` query it (the producer of
// every input tensor, the consumers of every output tensor), opened as a trace, and linked to it.
// Seeds: corpus/et/. Build and run: tests/fuzz/run_fuzz.sh, docs/fuzzing.md.

#include "core/analysis/timeline/etlinker.h"
#include "core/io/etreader.h"
#include "core/io/tracereader.h"
#include "fuzzcheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using ks::fuzz::checkMessage;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ks::EtLoadResult r = ks::readExecutionTrace(text);
    if (r.ok() == !r.error.empty()) std::abort();
    checkMessage(r.error);
    for (const std::string& w : r.warnings)
        checkMessage(w);
    if (!r.ok()) return 0;
    const ks::ExecutionTrace& et = *r.trace;
    // The queries walk parents: bounded by the node count, which the fuzzer keeps small.
    for (uint32_t n = 0; n < et.nodes().size() && n < 256; ++n) {
        const ks::EtNode& node = et.nodes()[n];
        for (uint32_t v = 0; v < node.inputs.size(); ++v)
            for (uint32_t t = 0; t < node.inputs[v].tensors.size(); ++t) {
                const int64_t p = et.producerOf(n, v, t);
                if (p >= int64_t(n)) std::abort(); // a producer runs before its consumer
            }
        for (uint32_t v = 0; v < node.outputs.size(); ++v)
            for (uint32_t t = 0; t < node.outputs[v].tensors.size(); ++t)
                for (uint32_t c : et.consumersOf(n, v, t))
                    if (c <= n) std::abort();
    }
    if (ks::looksLikeExecutionTrace(text.substr(0, 64 << 10))) {
        const ks::LoadResult t = ks::loadTraceData(text);
        if (t.ok() == !t.error.empty()) std::abort();
        checkMessage(t.error);
        if (t.ok() && t.executionTrace) {
            const ks::EtLinks links = ks::EtLinks::link(*t.trace, *t.executionTrace);
            if (links.linked() > links.ops()) std::abort();
        }
    }
    return 0;
}
