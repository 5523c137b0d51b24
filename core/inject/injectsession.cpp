#include "core/inject/injectsession.h"

#include "core/io/tracewriter.h"
#include "core/live/streamsender.h"
#include "core/record/api.h"
#include "core/record/windowbuilder.h"
#include "core/util/jsonwrite.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <unistd.h>

namespace ks::inject {

using namespace ks::record;

namespace {

std::string outputPath()
{
    const char* env = std::getenv("KINETOSCOPE_OUTPUT");
    if (!env || !*env) return {};
    std::string p = env;
    for (size_t at = p.find("%p"); at != std::string::npos; at = p.find("%p"))
        p.replace(at, 2, std::to_string(::getpid()));
    return p;
}

} // namespace

InjectSession& InjectSession::instance()
{
    // Never destroyed: finish() runs from atexit, after which static destructors may still see it.
    static auto* session = new InjectSession();
    return *session;
}

void InjectSession::start()
{
    std::lock_guard lock(m_mutex);
    if (m_started) return;
    m_started = true;
    Clock::initialize();
    Recorder::instance().discardAll();
    m_startTicks = Clock::ticks();
    Recorder::instance().setActive(true);
    std::atexit(&InjectSession::atExit);
    pthread_atfork(nullptr, nullptr, &InjectSession::afterForkInChild);
    if (const char* endpoint = std::getenv("KINETOSCOPE_ENDPOINT"); endpoint && *endpoint)
        startLive(endpoint);
}

// Called with m_mutex held, from start().
void InjectSession::startLive(const char* endpoint)
{
    live::SenderOptions o;
    o.endpoint = endpoint;
    o.capture = R"({"source":"injection library"})";
    std::string error;
    if (!live::processSender().start(o, error)) {
        // Not fatal: the program runs on, and the trace still goes to $KINETOSCOPE_OUTPUT if set.
        std::fprintf(stderr, "kinetoscope: cannot stream to %s: %s\n", endpoint, error.c_str());
        m_status.push_back("live: cannot stream to the session: " + error);
        return;
    }
    live::processSender().info("source", "libkinetoscope_inject");
    for (const std::string& line : m_status)
        live::processSender().log(live::LogLevel::Info, line);
    m_live = true;
    m_pump = std::thread([this] { pump(); });
}

void InjectSession::pump()
{
    // GPU records reach us one CUPTI flush period late anyway; 20 ms keeps frames few and large.
    std::unique_lock lock(m_pumpMutex);
    while (!m_stopPump) {
        m_pumpWake.wait_for(lock, std::chrono::milliseconds(20), [this] { return m_stopPump.load(); });
        lock.unlock();
        drainCollectors(false);
        lock.lock();
    }
}

void InjectSession::drainCollectors(bool final)
{
    std::vector<std::shared_ptr<ActivityCollector>> collectors;
    {
        std::lock_guard lock(m_mutex);
        collectors = m_collectors;
    }
    for (auto& c : collectors) {
        std::vector<DeviceActivity> batch;
        try {
            if (final)
                c->collect(batch);
            else
                c->drain(batch);
        } catch (...) {
            continue;
        }
        if (!batch.empty()) live::processSender().device(std::move(batch));
    }
}

void InjectSession::finishLive(const std::vector<std::shared_ptr<ActivityCollector>>& collectors)
{
    {
        std::lock_guard lock(m_pumpMutex);
        m_stopPump = true;
    }
    m_pumpWake.notify_all();
    if (m_pump.joinable()) m_pump.join();
    live::StreamSender& sender = live::processSender();
    for (auto& c : collectors) {
        try {
            c->stop();
            for (const std::string& line : c->warnings())
                sender.log(live::LogLevel::Warning, std::string(activityName(c->activity())) + ": " + line);
            for (const std::string& p : c->deviceProperties())
                sender.info("deviceProperties", p);
        } catch (...) {
            sender.log(live::LogLevel::Warning,
                       std::string(c->name()) + ": failed while stopping; its last activity is missing");
        }
    }
    drainCollectors(true);
    sender.stop(0);
}

void InjectSession::atExit()
{
    instance().finish();
}

void InjectSession::afterForkInChild()
{
    // A forked child shares the parent's output path; only a path with %p gives it its own file.
    InjectSession& s = instance();
    s.m_forkedChild = true;
}

void InjectSession::reportStatus(const std::string& line)
{
    std::fprintf(stderr, "kinetoscope: %s\n", line.c_str());
    if (m_live) live::processSender().log(live::LogLevel::Info, line);
    std::lock_guard lock(m_mutex);
    m_status.push_back(line);
}

std::vector<std::string> InjectSession::status()
{
    std::lock_guard lock(m_mutex);
    return m_status;
}

void InjectSession::attach(const std::shared_ptr<ActivityCollector>& collector)
{
    if (!collector) return;
    start();
    {
        std::lock_guard lock(m_mutex);
        for (auto& c : m_tried)
            if (c == collector) return;
        m_tried.push_back(collector);
        m_collectors.push_back(collector);
    }
    const std::string who = activityName(collector->activity());
    std::string why;
    bool ok = false;
    try {
        ok = collector->prepare(why);
        if (ok) collector->start();
    } catch (...) {
        ok = false;
        why = std::string(collector->name()) + " failed to start";
    }
    if (!ok) {
        reportStatus(who + ": not available: " + why);
        std::lock_guard lock(m_mutex);
        std::erase(m_collectors, collector);
    } else if (!why.empty()) {
        reportStatus(who + ": " + why);
    } else {
        reportStatus(who + ": recording with " + collector->name());
    }
}

void InjectSession::finish()
{
    std::vector<std::shared_ptr<ActivityCollector>> collectors;
    uint64_t startTicks = 0;
    {
        std::lock_guard lock(m_mutex);
        if (!m_started || m_finished) return;
        m_finished = true;
        collectors = m_collectors;
        startTicks = m_startTicks;
    }
    if (m_live) {
        // A forked child has no pump thread and its own connection, if any, ends with it.
        if (!m_forkedChild) finishLive(collectors);
        return;
    }
    Recorder& rec = Recorder::instance();
    rec.setActive(false);
    WindowOptions w;
    w.startTicks = startTicks;
    w.stopTicks = Clock::ticks();
    std::string props = "[";
    for (auto& c : collectors) {
        try {
            c->stop();
            c->collect(w.device);
            for (const std::string& line : c->warnings())
                reportStatus(std::string(activityName(c->activity())) + ": " + line);
            for (const std::string& p : c->deviceProperties())
                props += (props.size() > 1 ? ", " : "") + p;
        } catch (...) {
            reportStatus(std::string(c->name()) + ": failed while stopping; its activity is missing");
        }
    }
    w.deviceProperties = props + "]";
    const std::string path = outputPath();
    const char* raw = std::getenv("KINETOSCOPE_OUTPUT");
    if (path.empty()) {
        std::fprintf(stderr, "kinetoscope: KINETOSCOPE_OUTPUT is not set; no trace written\n");
        return;
    }
    if (m_forkedChild && raw && std::string(raw).find("%p") == std::string::npos) return;
    std::string statusJson = "[";
    for (const std::string& s : status()) {
        if (statusJson.size() > 1) statusJson += ", ";
        appendJsonString(statusJson, s);
    }
    w.metadata.emplace_back("kinetoscope_status", statusJson + "]");
    try {
        const auto trace = buildTrace(rec.drainAll(), rec, w);
        const SaveResult r = saveTraceFile(*trace, path);
        if (r.ok)
            std::fprintf(stderr, "kinetoscope: wrote %s (%llu events)\n", path.c_str(),
                         static_cast<unsigned long long>(r.stats.events));
        else
            std::fprintf(stderr, "kinetoscope: could not write the trace: %s\n", r.error.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kinetoscope: could not write the trace: %s\n", e.what());
    }
}

} // namespace ks::inject
