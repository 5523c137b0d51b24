// libFuzzer target for the path a target names in its Window frame (core/live/windowfile): the
// session opens it only when it is a regular file inside its own window directory. The input is
// the path, tried as it is and under the window directory (so "..", "//", "/./", symlinks and
// control bytes meet the check). The directory holds a window file, a subdirectory, a symlink to a
// file outside, a symlinked directory leading outside and a FIFO; outside it is another file. A
// path must open a regular file at or below the directory, or give a one-line error without
// control bytes; nothing may block (the FIFO) or escape. Seeds: corpus/window_file/.
// Build and run: tests/fuzz/run_fuzz.sh, docs/fuzzing.md.

#include "core/live/windowfile.h"
#include "fuzzcheck.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using ks::fuzz::checkMessage;

namespace {

struct Dirs {
    std::string root;   // holds both
    std::string window; // the session's window directory
    std::string realWindow;
};

void touch(const std::string& path)
{
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fputs("[]", f);
        std::fclose(f);
    } else {
        std::abort();
    }
}

const Dirs& dirs()
{
    static const Dirs d = [] {
        Dirs r;
        std::string t = "/tmp/ks-fuzz-windowfile-XXXXXX";
        if (!::mkdtemp(t.data())) std::abort();
        r.root = t;
        r.window = t + "/win";
        if (::mkdir(r.window.c_str(), 0700) != 0 || ::mkdir((r.window + "/sub").c_str(), 0700) != 0 ||
            ::mkdir((t + "/outside").c_str(), 0700) != 0)
            std::abort();
        touch(r.window + "/w.pt.trace.json");
        touch(r.window + "/sub/w2.pt.trace.json");
        touch(t + "/outside/secret.json");
        if (::symlink((t + "/outside/secret.json").c_str(), (r.window + "/link.json").c_str()) != 0 ||
            ::symlink((t + "/outside").c_str(), (r.window + "/out").c_str()) != 0 ||
            ::mkfifo((r.window + "/fifo").c_str(), 0600) != 0)
            std::abort();
        char buf[PATH_MAX];
        if (!::realpath(r.window.c_str(), buf)) std::abort();
        r.realWindow = buf;
        return r;
    }();
    return d;
}

void check(const std::string& path)
{
    const Dirs& d = dirs();
    std::string resolved, error;
    const int fd = ks::live::openWindowFile(path, d.window, resolved, error);
    if (fd >= 0 && path.find('\0') != std::string::npos) std::abort(); // no file has such a name
    if (fd < 0) {
        if (error.empty()) std::abort();
        checkMessage(error);
        return;
    }
    struct stat st {};
    if (!error.empty() || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) std::abort();
    // What opened is inside the window directory, and it is the file resolved names.
    char buf[PATH_MAX];
    if (!::realpath(resolved.c_str(), buf)) std::abort();
    const std::string real = buf;
    if (real.rfind(d.realWindow + "/", 0) != 0) std::abort();
    struct stat named {};
    if (::stat(real.c_str(), &named) != 0 || named.st_ino != st.st_ino || named.st_dev != st.st_dev)
        std::abort();
    ::close(fd);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string input(reinterpret_cast<const char*>(data), size);
    check(input);
    check(dirs().window + "/" + input);
    return 0;
}
