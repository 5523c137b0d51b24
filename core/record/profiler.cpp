#include "core/record/profiler.h"

#include "core/record/api.h"
#include "core/record/windowbuilder.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <unistd.h>

namespace ks::record {

namespace {

std::atomic<Profiler*> g_active{nullptr};

std::mutex g_factoryMutex;
CollectorFactory g_factory;

std::string jsonString(const std::string& s)
{
    std::string out;
    appendJsonString(out, s);
    return out;
}

} // namespace

const char* activityName(Activity a)
{
    switch (a) {
    case Activity::CPU:
        return "CPU";
    case Activity::CUDA:
        return "CUDA";
    case Activity::XPU:
        return "XPU";
    }
    return "?";
}

void setBuiltinCollectorFactory(CollectorFactory factory)
{
    std::lock_guard lock(g_factoryMutex);
    g_factory = std::move(factory);
}

std::shared_ptr<ActivityCollector> builtinCollector(Activity activity, std::string& why)
{
    CollectorFactory f;
    {
        std::lock_guard lock(g_factoryMutex);
        f = g_factory;
    }
    if (!f) {
        why = "no collectors were installed in this process (collect::installBuiltinCollectors)";
        return nullptr;
    }
    return f(activity, why);
}

Profiler::Profiler(ProfilerOptions options) : m_options(std::move(options))
{
    if (m_options.withFlops) m_options.recordShapes = true; // as torch does
    ScheduleDriver::Hooks hooks;
    hooks.prepare = [this] { prepareTrace(); };
    hooks.start = [this] { startTrace(); };
    hooks.stop = [this] { stopTrace(); };
    hooks.ready = [this] { traceReady(); };
    hooks.warn = [this](const char* msg) { m_status.emplace_back(msg); };
    hooks.openStep = [this](int64_t n) { openStep(n); };
    hooks.closeStep = [this] { closeStep(); };
    if (m_options.scheduleFn) {
        m_driver = std::make_unique<ScheduleDriver>(m_options.scheduleFn, hooks);
    } else if (m_options.schedule) {
        if (auto err = m_options.schedule->validate()) throw std::invalid_argument(*err);
        const Schedule s = *m_options.schedule;
        m_driver = std::make_unique<ScheduleDriver>([s](int64_t step) { return s(step); }, hooks);
    } else {
        m_driver = std::make_unique<ScheduleDriver>(hooks);
    }
}

Profiler::~Profiler()
{
    if (m_started) {
        try {
            stop();
        } catch (...) {
            // A destructor must not throw; the window is lost, recording is off.
            Recorder::instance().setActive(false);
            setStackCapture(false, false);
            g_active.store(nullptr);
        }
    }
}

ProfilerAction Profiler::currentAction() const
{
    return m_driver->currentAction();
}

void Profiler::start()
{
    if (m_started) throw std::logic_error("profiler already started");
    Profiler* expected = nullptr;
    if (!g_active.compare_exchange_strong(expected, this))
        throw std::logic_error("another profiler is recording in this process");
    m_started = true;
    m_driver->start();
}

void Profiler::step()
{
    if (!m_started) throw std::logic_error("profiler not started");
    m_driver->step();
}

void Profiler::stop()
{
    if (!m_started) return;
    m_driver->stop();
    m_started = false;
    g_active.store(nullptr);
}

void Profiler::prepareTrace()
{
    // Collectors get set up during warmup so their start-up cost stays out of the window, as
    // Kineto's prepare does.
    m_activeCollectors.clear();
    m_status.erase(std::remove_if(m_status.begin(), m_status.end(),
                                  [](const std::string& s) { return s.rfind("Incorrect schedule", 0) != 0; }),
                   m_status.end());
    for (Activity a : m_options.activities) {
        if (a == Activity::CPU) continue;
        // The build's own collector unless the caller brought one for this activity.
        std::vector<std::shared_ptr<ActivityCollector>> candidates;
        for (auto& c : m_options.collectors)
            if (c && c->activity() == a) candidates.push_back(c);
        std::string noDefault;
        if (candidates.empty() && !m_options.builtinCollectors)
            noDefault = "no collector was given for it";
        else if (candidates.empty())
            if (auto c = builtinCollector(a, noDefault)) candidates.push_back(std::move(c));
        bool found = false;
        for (auto& c : candidates) {
            found = true;
            std::string why;
            if (c->prepare(why)) {
                m_activeCollectors.push_back(c);
                if (!why.empty()) m_status.push_back(std::string(activityName(a)) + ": " + why);
            } else {
                m_status.push_back(std::string(activityName(a)) + ": not available: " + why);
            }
        }
        if (!found)
            m_status.push_back(
                std::string(activityName(a)) + ": not available: " +
                (noDefault.empty() ? std::string("no collector for it in this build") : noDefault));
    }
}

void Profiler::startTrace()
{
    if (m_options.onWindow) m_options.onWindow(*this, true);
    Recorder& rec = Recorder::instance();
    rec.discardAll();
    for (auto& c : m_activeCollectors)
        c->start();
    if (m_options.withStack) {
        // The unwinder's first use loads and sets things up: not on a recorded range.
        if (m_options.nativeStacks) warmStackCapture();
        setStackCapture(true, m_options.nativeStacks);
    }
    m_windowStart = Clock::ticks();
    m_argsDroppedAtStart = rec.payloadStats().dropped;
    rec.setActive(true);
    m_recording = true;
}

void Profiler::stopTrace()
{
    if (m_options.onWindow) m_options.onWindow(*this, false);
    Recorder& rec = Recorder::instance();
    rec.setActive(false);
    setStackCapture(false, false);
    m_recording = false;
    WindowOptions w;
    w.startTicks = m_windowStart;
    w.stopTicks = Clock::ticks();
    for (auto& c : m_activeCollectors) {
        c->stop();
        c->collect(w.device);
        for (const std::string& line : c->warnings())
            m_status.push_back(std::string(activityName(c->activity())) + ": " + line);
    }
    std::string props = "[";
    bool first = true;
    for (auto& c : m_activeCollectors) {
        for (const std::string& p : c->deviceProperties()) {
            props += first ? "" : ", ";
            props += p;
            first = false;
        }
    }
    w.deviceProperties = props + "]";
    // The keys PyTorch adds for the options that were on, then the user's.
    if (m_options.profileMemory) w.metadata.emplace_back("profile_memory", "1");
    if (m_options.withStack) w.metadata.emplace_back("with_stack", "1");
    if (m_options.recordShapes) w.metadata.emplace_back("record_shapes", "1");
    if (m_options.withFlops) w.metadata.emplace_back("with_flops", "1");
    for (const auto& kv : m_metadata)
        w.metadata.push_back(kv);
    // Args refused at the payload store's cap: the events are there, their args are not.
    if (const uint64_t dropped = rec.payloadStats().dropped - m_argsDroppedAtStart) {
        w.metadata.emplace_back("kinetoscope_args_dropped", std::to_string(dropped));
        m_status.push_back("args of " + std::to_string(dropped) +
                           " events were not kept: the args store is at its " +
                           std::to_string(rec.payloadCap() >> 20) + " MiB cap (KINETOSCOPE_MAX_ARGS_MB)");
    }
    m_trace = buildTrace(rec.drainAll(), rec, w);
}

void Profiler::traceReady()
{
    if (m_options.onTraceReady) m_options.onTraceReady(*this);
}

void Profiler::openStep(int64_t n)
{
    rangeBegin(internName("ProfilerStep#" + std::to_string(n)));
    m_stepOpen = recording();
}

void Profiler::closeStep()
{
    if (m_stepOpen) rangeEnd();
    m_stepOpen = false;
}

void Profiler::addMetadata(const std::string& key, const std::string& value)
{
    addMetadataJson(key, jsonString(value));
}

void Profiler::addMetadataJson(const std::string& key, const std::string& json)
{
    for (auto& kv : m_metadata) {
        if (kv.first == key) {
            kv.second = json;
            return;
        }
    }
    m_metadata.emplace_back(key, json);
}

SaveResult Profiler::exportChromeTrace(const std::string& path) const
{
    if (!m_trace) {
        SaveResult r;
        r.error = "no profiling window has finished yet";
        return r;
    }
    // Kineto records the file it was asked to write as the trace's name.
    m_trace->metadata().set("traceName", jsonString(path));
    m_trace->metadata().traceName = path;
    return saveTraceFile(*m_trace, path);
}

std::function<void(Profiler&)> tensorboardTraceHandler(const std::string& dir, std::string workerName,
                                                       bool useGzip)
{
    return [dir, workerName, useGzip](Profiler& prof) mutable {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec || !std::filesystem::is_directory(dir))
            throw std::runtime_error("Can't create directory: " + dir);
        if (workerName.empty()) {
            char host[256] = {};
            gethostname(host, sizeof host - 1);
            workerName = std::string(host) + "_" + std::to_string(::getpid());
        }
        const int64_t nowNs = Clock::realtimeNs();
        std::string path = dir + "/" + workerName + "." + std::to_string(nowNs) + ".pt.trace.json";
        if (useGzip) path += ".gz";
        const SaveResult r = prof.exportChromeTrace(path);
        if (!r.ok) throw std::runtime_error(r.error);
    };
}

} // namespace ks::record
