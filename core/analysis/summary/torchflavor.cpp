#include "core/analysis/summary/torchflavor.h"

#include <algorithm>

namespace ks {

namespace {

// Slices looked at per CPU thread for ns digits: a 2.x trace shows them within its first events.
constexpr size_t kSlicesChecked = 4096;

bool hasNanosecondDigits(const Trace& trace)
{
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& s = track.slices;
        const size_t n = std::min(s.size(), kSlicesChecked);
        for (size_t i = 0; i < n; ++i)
            if (s.start(i) % 1000 != 0 || s.end(i) % 1000 != 0) return true;
    }
    return false;
}

} // namespace

TorchFlavor detectTorchFlavor(const Trace& trace)
{
    const TraceMetadata& md = trace.metadata();
    if (md.baseTimeNs || md.find("trace_id")) return TorchFlavor::Torch2;
    return hasNanosecondDigits(trace) ? TorchFlavor::Torch2 : TorchFlavor::Torch1;
}

bool parseTorchFlavor(std::string_view text, TorchFlavor& out)
{
    if (text == "1" || text == "1.13" || text == "1.x") {
        out = TorchFlavor::Torch1;
        return true;
    }
    if (text == "2" || text == "2.x" || (text.size() > 2 && text.substr(0, 2) == "2.")) {
        out = TorchFlavor::Torch2;
        return true;
    }
    return false;
}

const char* torchFlavorName(TorchFlavor flavor)
{
    return flavor == TorchFlavor::Torch2 ? "2" : "1.13";
}

} // namespace ks
