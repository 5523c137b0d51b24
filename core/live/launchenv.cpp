#include "core/live/launchenv.h"

#include <algorithm>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace ks::live {

namespace {

void prepend(std::map<std::string, std::string>& env, const std::string& key, const std::string& value)
{
    auto it = env.find(key);
    env[key] = it == env.end() || it->second.empty() ? value : value + ":" + it->second;
}

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A sanitizer's runtime (libasan, libubsan, ..., clang's libclang_rt.*) preloaded by the caller: it
// must stay the process's first library, or ASan refuses to start the target.
bool isSanitizerRuntime(const std::string& path)
{
    const std::string name = baseName(path);
    for (const char* prefix : {"libasan.", "libubsan.", "liblsan.", "libtsan.", "libhwasan.", "libclang_rt."})
        if (name.rfind(prefix, 0) == 0) return true;
    return false;
}

// Puts lib in front of LD_PRELOAD's libraries (ours interpose first), but after the sanitizer
// runtimes that lead it. ld.so separates entries by colons or spaces.
void preload(std::map<std::string, std::string>& env, const std::string& lib)
{
    std::vector<std::string> entries;
    if (auto it = env.find("LD_PRELOAD"); it != env.end()) {
        size_t start = 0;
        const std::string& v = it->second;
        while (start <= v.size()) {
            const size_t end = std::min(v.find_first_of(": ", start), v.size());
            if (end > start) entries.push_back(v.substr(start, end - start));
            start = end + 1;
        }
    }
    size_t at = 0;
    while (at < entries.size() && isSanitizerRuntime(entries[at]))
        ++at;
    entries.insert(entries.begin() + ptrdiff_t(at), lib);
    std::string joined;
    for (const std::string& e : entries)
        joined += (joined.empty() ? "" : ":") + e;
    env["LD_PRELOAD"] = joined;
}

} // namespace

std::vector<std::string> currentEnvironment()
{
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e)
        out.emplace_back(*e);
    return out;
}

LaunchEnvironment
buildLaunchEnvironment(const std::vector<std::string>& base,
                       const std::vector<std::pair<std::string, std::optional<std::string>>>& changes,
                       const std::string& endpoint, const std::string& windowDir,
                       const CaptureOptions& capture, const LiveResources& resources)
{
    std::map<std::string, std::string> env;
    for (const std::string& e : base) {
        const size_t eq = e.find('=');
        if (eq != std::string::npos && eq > 0) env[e.substr(0, eq)] = e.substr(eq + 1);
    }
    for (const auto& [key, value] : changes) {
        if (value)
            env[key] = *value;
        else
            env.erase(key);
    }
    LaunchEnvironment out;
    env["KINETOSCOPE_ENDPOINT"] = endpoint;
    env["KINETOSCOPE_CAPTURE"] = capture.toJson();
    if (!windowDir.empty()) env["KINETOSCOPE_WINDOW_DIR"] = windowDir;
    env["PYTHONUNBUFFERED"] = "1";
    if (!resources.library.empty()) {
        env["KINETOSCOPE_LIB"] = resources.library;
    } else {
        out.notes.push_back("libkinetoscope.so.1 was not found: Python targets cannot stream (build or "
                            "install the C library)");
    }
    if (!resources.bootstrapDir.empty()) {
        prepend(env, "PYTHONPATH", resources.bootstrapDir);
    } else {
        out.notes.push_back("the Python bootstrap (sitecustomize.py) was not found: Python scripts will "
                            "run without recording");
    }
    if (capture.cuda || capture.xpu) {
        if (resources.injectLibrary.empty()) {
            out.notes.push_back(
                std::string(capture.cuda ? "CUDA" : "XPU") +
                " capture: the injection library (libkinetoscope_inject.so) is not part of this "
                "build; GPU activity will not be recorded");
        } else {
            if (capture.cuda && capture.mode == CaptureOptions::Mode::Windows) {
                // torch.profiler records the windows' GPU work through Kineto's CUPTI. A process has
                // one CUPTI activity client: the injection's would lose its buffers to Kineto's (or
                // take Kineto's), so it is not loaded.
                out.notes.push_back("CUDA: recorded by torch.profiler in its windows (Kineto's CUPTI)");
            } else if (capture.cuda) {
                env["CUDA_INJECTION64_PATH"] = resources.injectLibrary;
                env["NVTX_INJECTION64_PATH"] = resources.injectLibrary;
                out.notes.push_back("CUDA: injection library " + resources.injectLibrary);
            }
            if (capture.xpu) {
                env["ZE_ENABLE_TRACING_LAYER"] = "1";
                preload(env, resources.injectLibrary);
                out.notes.push_back("XPU: Level Zero tracing layer and " + resources.injectLibrary);
            }
        }
    }
    for (const auto& [k, v] : env)
        out.env.push_back(k + "=" + v);
    return out;
}

std::string programLabel(const std::vector<std::string>& argv)
{
    if (argv.empty()) return {};
    const std::string program = baseName(argv[0]);
    if (program.rfind("python", 0) != 0) return program;
    for (size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "-m" && i + 1 < argv.size()) return argv[i + 1];
        if (!argv[i].empty() && argv[i][0] != '-') return baseName(argv[i]);
    }
    return program;
}

std::string checkPythonScript(const std::vector<std::string>& argv, const std::string& workdir)
{
    if (argv.empty() || baseName(argv[0]).rfind("python", 0) != 0) return {};
    // The first argument that is not an interpreter option is the script; -m and -c take no file.
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "-m" || a == "-c" || a == "-") return {};
        if (a == "-W" || a == "-X" || a == "--check-hash-based-pycs") {
            ++i;
            continue;
        }
        if (!a.empty() && a[0] == '-') continue;
        const std::string path = a[0] == '/' || workdir.empty() ? a : workdir + "/" + a;
        struct stat st;
        if (::stat(path.c_str(), &st) != 0)
            return "script not found: " + a + (workdir.empty() ? std::string() : " (in " + workdir + ")");
        if (S_ISDIR(st.st_mode) && ::access((path + "/__main__.py").c_str(), F_OK) != 0)
            return "not a script: " + a + " is a directory without __main__.py";
        return {};
    }
    return {};
}

} // namespace ks::live
