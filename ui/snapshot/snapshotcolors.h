#pragma once

#include <QColor>
#include <cstdint>

namespace ks::ui {

// memory_viz's colours (d3's schemeTableau10): an allocation takes the one of its index, as
// MemoryViz.js colours its elements; a block of the allocator state the one of its address.
inline QRgb snapshotColor(uint64_t key)
{
    static constexpr QRgb kTableau10[] = {0xff4e79a7, 0xfff28e2c, 0xffe15759, 0xff76b7b2, 0xff59a14f,
                                          0xffedc949, 0xffaf7aa1, 0xffff9da7, 0xff9c755f, 0xffbab0ab};
    return kTableau10[key % 10];
}
constexpr QRgb kMergedBandColor = 0xff8a8a8a;     // bands thinner than a pixel, merged
constexpr QRgb kSummarizedBandColor = 0xffc8c8c8; // the allocations not drawn one by one
constexpr QRgb kPendingFreeColor = 0xffd62728;    // freed, waiting for its stream (memory_viz: red)

} // namespace ks::ui
