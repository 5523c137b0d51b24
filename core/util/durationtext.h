#pragma once

#include <string>

namespace ks {

// A duration for a reader, in the unit that keeps its digits: "20 ns" below a microsecond (trace
// events of tens of ns would otherwise read 0.0 us), "12.5 us", "3.250 ms", "1.500 s". Negative
// values keep their sign; non-finite ones are "-".
std::string durationText(double ns);

} // namespace ks
