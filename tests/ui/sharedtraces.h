#pragma once

// The real traces in KS_SHARED_TRACES that the UI tests open, by file name.

#include "ui/document/tracedocument.h"

#include <QString>
#include <atomic>
#include <memory>

namespace ks::test {

// TraceLens's H100 trace of Qwen1.5-0.5B-Chat: kernels, operators with shapes, memory.
inline constexpr char kQwen[] =
    "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";

inline QString sharedTracePath(const char* name)
{
    return QStringLiteral(KS_SHARED_TRACES "/") + QLatin1StringView(name);
}

// Loads a shared trace the way the window does, without progress; null when it cannot be read.
inline std::shared_ptr<ui::TraceDocument> loadSharedDocument(const char* name)
{
    std::atomic<bool> cancel{false};
    return ui::loadDocument(sharedTracePath(name), cancel, {}).document;
}

} // namespace ks::test
