#pragma once

#include "core/collect/cuptifacade.h"

#include <memory>
#include <string>

namespace ks::collect {

// The real libcupti, opened at run time. A copy already mapped into the process (the
// libcupti.so.12 a torch wheel links, say) is preferred over loading another: two libcupti
// instances in one process fight over the same driver hooks. Then the CUPTI wheel beside the Python
// running in the process (site-packages/nvidia/cu13/lib or nvidia/cuda_cupti/lib, found from the
// files it has mapped: wheellibdirs.h), then libcupti.so.13/.12/.so by soname, then $CUDA_HOME,
// the wheels of the environment's, the user's and the system's Pythons, /usr/local/cuda and the
// build's toolkit. KINETOSCOPE_CUPTI_LIBRARY names a file to use instead.
class CuptiLibrary : public CuptiFacade {
public:
    // Null with the reason in why when no usable libcupti is found.
    static std::unique_ptr<CuptiLibrary> load(std::string& why);
    ~CuptiLibrary() override;

    // The file actually used.
    const std::string& path() const { return m_path; }

    uint32_t version() override;
    std::string driverProblem() override;
    int probeSubscriber(std::string& otherTool) override;
    int registerCallbacks(RequestFn request, CompleteFn complete) override;
    int enable(int kind) override;
    int disable(int kind) override;
    int flushAll(uint32_t flags) override;
    int nextRecord(uint8_t* buffer, size_t validSize, uint8_t** record) override;
    size_t droppedRecords(uint32_t streamId) override;
    int pushExternal(uint64_t id) override;
    int popExternal() override;
    int64_t timestamp() override;
    std::string resultName(int code) override;
    std::string callbackName(bool driver, uint32_t cbid) override;
    std::vector<std::string> deviceProperties() override;
    bool deviceLimits(int device, DeviceLimits& out) override;

private:
    struct Api;
    struct Driver;
    CuptiLibrary() = default;
    bool queryDevices();

    std::unique_ptr<Api> m_api;
    std::unique_ptr<Driver> m_driver;
    std::string m_path;
};

} // namespace ks::collect
