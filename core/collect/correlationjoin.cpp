#include "core/collect/correlationjoin.h"

namespace ks::collect {

using record::DeviceActivity;

namespace {

bool isHostCall(DeviceActivity::Kind k)
{
    return k == DeviceActivity::Kind::Runtime || k == DeviceActivity::Kind::Driver;
}

} // namespace

void CorrelationJoin::addExternal(int64_t correlation, int64_t externalId)
{
    m_external[correlation] = External{externalId, m_generation};
}

void CorrelationJoin::add(DeviceActivity a)
{
    m_incoming.push_back(std::move(a));
}

void CorrelationJoin::link(DeviceActivity& a) const
{
    if (a.correlation == 0) return;
    if (a.externalId == 0) {
        auto it = m_external.find(a.correlation);
        if (it != m_external.end()) a.externalId = it->second.id;
    }
    if (a.kind == DeviceActivity::Kind::Memory && a.hostTid == 0) {
        auto it = m_apis.find(a.correlation);
        if (it != m_apis.end()) a.hostTid = it->second.hostTid;
    }
}

void CorrelationJoin::drain(std::vector<DeviceActivity>& out, bool final)
{
    // API records first: everything held may be waiting for one of them.
    for (const DeviceActivity& a : m_incoming) {
        if (isHostCall(a.kind) && a.correlation != 0) m_apis[a.correlation] = Api{a.hostTid, m_generation};
    }
    std::vector<Held> still;
    auto release = [&](DeviceActivity& a, int age) {
        const bool ready = final || isHostCall(a.kind) || a.correlation == 0 || m_apis.count(a.correlation) ||
                           age >= kMaxHold;
        if (!ready) {
            still.push_back(Held{std::move(a), age + 1});
            return;
        }
        link(a);
        out.push_back(std::move(a));
    };
    for (Held& h : m_held)
        release(h.activity, h.age);
    for (DeviceActivity& a : m_incoming)
        release(a, 0);
    m_incoming.clear();
    m_held = std::move(still);
    ++m_generation;
    forgetOld();
}

void CorrelationJoin::forgetOld()
{
    if (m_generation % 16 != 0) return;
    for (auto it = m_external.begin(); it != m_external.end();)
        it = m_generation - it->second.generation > uint64_t(kForgetAfter) ? m_external.erase(it)
                                                                           : std::next(it);
    for (auto it = m_apis.begin(); it != m_apis.end();)
        it = m_generation - it->second.generation > uint64_t(kForgetAfter) ? m_apis.erase(it) : std::next(it);
}

void CorrelationJoin::clear()
{
    m_incoming.clear();
    m_held.clear();
    m_external.clear();
    m_apis.clear();
}

} // namespace ks::collect
