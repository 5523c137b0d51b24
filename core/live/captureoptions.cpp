#include "core/live/captureoptions.h"

#include <cstdlib>
#include <sstream>
#include <vector>

namespace ks::live {

namespace {

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) {
        while (!cur.empty() && cur.front() == ' ')
            cur.erase(cur.begin());
        while (!cur.empty() && cur.back() == ' ')
            cur.pop_back();
        out.push_back(cur);
    }
    return out;
}

} // namespace

std::string CaptureOptions::toJson() const
{
    auto b = [](bool v) { return v ? "true" : "false"; };
    std::string s = "{\"mode\": \"";
    s += modeName(mode);
    s += "\", \"cpu\": ";
    s += b(cpu);
    s += ", \"cuda\": ";
    s += b(cuda);
    s += ", \"xpu\": ";
    s += b(xpu);
    s += ", \"shapes\": ";
    s += b(shapes);
    s += ", \"memory\": ";
    s += b(memory);
    s += ", \"stack\": ";
    s += b(stack);
    s += ", \"schedule\": {\"wait\": " + std::to_string(schedule.wait) +
         ", \"warmup\": " + std::to_string(schedule.warmup) +
         ", \"active\": " + std::to_string(schedule.active) +
         ", \"repeat\": " + std::to_string(schedule.repeat) +
         ", \"skip_first\": " + std::to_string(schedule.skipFirst) + "}}";
    return s;
}

bool CaptureOptions::parseCapture(const std::string& list, std::string& error)
{
    cpu = cuda = xpu = shapes = memory = stack = false;
    for (const std::string& item : split(list, ',')) {
        if (item == "cpu")
            cpu = true;
        else if (item == "cuda")
            cuda = true;
        else if (item == "xpu")
            xpu = true;
        else if (item == "shapes")
            shapes = true;
        else if (item == "memory")
            memory = true;
        else if (item == "stack")
            stack = true;
        else if (!item.empty()) {
            error = "unknown capture \"" + item + "\" (cpu, cuda, xpu, shapes, memory, stack)";
            return false;
        }
    }
    return true;
}

bool CaptureOptions::parseSchedule(const std::string& csv, std::string& error)
{
    const std::vector<std::string> parts = split(csv, ',');
    if (parts.empty() || parts.size() > 5) {
        error = "schedule must be wait,warmup,active[,repeat[,skip_first]]";
        return false;
    }
    int64_t v[5] = {0, 0, 1, 0, 0};
    for (size_t i = 0; i < parts.size(); ++i) {
        char* end = nullptr;
        v[i] = std::strtoll(parts[i].c_str(), &end, 10);
        if (parts[i].empty() || *end != 0) {
            error = "schedule: \"" + parts[i] + "\" is not a number";
            return false;
        }
    }
    record::Schedule s;
    s.wait = v[0];
    s.warmup = v[1];
    s.active = v[2];
    s.repeat = v[3];
    s.skipFirst = v[4];
    if (auto e = s.validate()) {
        error = "schedule: " + *e;
        return false;
    }
    schedule = s;
    return true;
}

bool CaptureOptions::parseMode(const std::string& name, std::string& error)
{
    if (name == "native")
        mode = Mode::Native;
    else if (name == "windows")
        mode = Mode::Windows;
    else {
        error = "unknown mode \"" + name + "\" (native, windows)";
        return false;
    }
    return true;
}

std::string CaptureOptions::captureList() const
{
    std::string s;
    auto add = [&s](bool on, const char* name) {
        if (!on) return;
        if (!s.empty()) s += ",";
        s += name;
    };
    add(cpu, "cpu");
    add(cuda, "cuda");
    add(xpu, "xpu");
    add(shapes, "shapes");
    add(memory, "memory");
    add(stack, "stack");
    return s;
}

} // namespace ks::live
