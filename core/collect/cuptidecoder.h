#pragma once

#include "core/collect/cuptifacade.h"
#include "core/record/deviceactivity.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace ks::collect {

// Turns CUPTI activity records into DeviceActivities shaped like Kineto's events (names,
// categories, args and their order). The record layout is the one of the libcupti that is loaded,
// so the decoder is set up from the run-time cuptiGetVersion, not from the header we were built
// with: CUDA 12 (API versions 19-28: Kernel9, Memcpy5, Synchronization, Overhead2, Memory3) and
// CUDA 13 (130000 on: Kernel10/Kernel11, Memcpy6, Synchronization2, Overhead3, Memory4).
//
// Times stay in CUPTI's clock; the collector maps them. Not thread-safe.
class CuptiDecoder {
public:
    enum class Generation { None, Cuda12, Cuda13 };

    struct Decoded {
        enum class Type { Skipped, Activity, External } type = Type::Skipped;
        record::DeviceActivity activity; // Activity
        int64_t correlation = 0;         // External
        int64_t externalId = 0;          // External (CUSTOM2 only; other kinds are Skipped)
    };

    // False with the reason when records of that CUPTI cannot be decoded.
    bool setVersion(uint32_t apiVersion, std::string& why);
    Generation generation() const { return m_generation; }
    // Names API calls and gives device limits for the occupancy args; may be null (tests).
    void setFacade(CuptiFacade* facade) { m_facade = facade; }

    // One record as returned by cuptiActivityGetNextRecord.
    Decoded decode(const uint8_t* record);

    // Kineto's names for copy directions and memory kinds ("HtoD", "Pageable").
    static const char* copyKindName(uint32_t kind);
    static const char* memoryKindName(uint32_t kind);
    // "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
    static std::string apiName(std::string raw);

    // Field offsets of one record generation (defined in the .cpp).
    struct Layout;

private:
    Decoded kernel(const uint8_t* r);
    Decoded memcpy(const uint8_t* r);
    Decoded memset(const uint8_t* r);
    // What copies and fills share: times, placement, and Kineto's args with bytes and bandwidth.
    template <typename RecordLayout>
    Decoded transfer(const uint8_t* r, const RecordLayout& L, record::DeviceActivity::Kind kind,
                     std::string name);
    Decoded api(const uint8_t* r, bool driver);
    Decoded external(const uint8_t* r);
    Decoded sync(const uint8_t* r);
    Decoded overhead(const uint8_t* r);
    Decoded memory(const uint8_t* r);
    const std::string& callName(bool driver, uint32_t cbid);
    void noteContext(uint32_t context, uint32_t device) { m_contextDevice[context] = device; }

    Generation m_generation = Generation::None;
    const Layout* m_layout = nullptr;
    CuptiFacade* m_facade = nullptr;
    std::unordered_map<uint64_t, std::string> m_names;
    std::unordered_map<uint32_t, uint32_t> m_contextDevice;
};

} // namespace ks::collect
