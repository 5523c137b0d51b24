#include "core/live/childprocess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ks::live {

namespace {

std::string envValue(const std::vector<std::string>& env, const std::string& key)
{
    for (const std::string& e : env)
        if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
            return e.substr(key.size() + 1);
    return {};
}

bool isExecutableFile(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string signalName(int sig)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    if (const char* abbrev = ::sigabbrev_np(sig)) {
        std::string s = "SIG";
        s.append(abbrev);
        return s;
    }
#endif
    return "signal " + std::to_string(sig);
}

} // namespace

ChildProcess::~ChildProcess()
{
    if (running()) {
        signal(SIGKILL);
        int status;
        ::waitpid(m_pid, &status, 0);
    }
    closeStdout();
    closeStderr();
}

std::string ChildProcess::resolveProgram(const std::string& program, const std::vector<std::string>& env,
                                         const std::string& workdir, std::string& error)
{
    if (program.empty()) {
        error = "no program to run";
        return {};
    }
    if (program.find('/') != std::string::npos) {
        const std::string path = program[0] == '/' || workdir.empty() ? program : workdir + "/" + program;
        if (::access(path.c_str(), F_OK) != 0) {
            error = "program not found: " + program;
            return {};
        }
        if (!isExecutableFile(path)) {
            error = "not an executable file: " + program;
            return {};
        }
        return path;
    }
    std::string pathVar = envValue(env, "PATH");
    if (pathVar.empty()) pathVar = "/usr/local/bin:/usr/bin:/bin";
    size_t pos = 0;
    while (pos <= pathVar.size()) {
        const size_t colon = pathVar.find(':', pos);
        const std::string dir =
            pathVar.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        // An empty PATH entry means the current directory.
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
        if (isExecutableFile(candidate)) return candidate;
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    error = "program not found: " + program + " (not in PATH=" + pathVar + ")";
    return {};
}

bool ChildProcess::start(const Options& o, std::string& error)
{
    if (o.argv.empty()) {
        error = "no program to run";
        return false;
    }
    if (!o.workdir.empty()) {
        struct stat st;
        if (::stat(o.workdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            error = "working directory does not exist: " + o.workdir;
            return false;
        }
    }
    const std::string program = resolveProgram(o.argv[0], o.env, o.workdir, error);
    if (program.empty()) return false;

    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0) {
        error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return false;
    }
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        error = std::string("cannot create a pipe: ") + std::strerror(errno);
        ::close(outPipe[0]);
        ::close(outPipe[1]);
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    if (!o.workdir.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.workdir.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // The viewer may ignore SIGPIPE or SIGINT; the target must get the defaults a shell gives it.
    sigset_t none, reset;
    sigemptyset(&none);
    sigemptyset(&reset);
    for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
        sigaddset(&reset, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &reset);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv, envp;
    for (const std::string& a : o.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : o.env)
        envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (rc != 0) {
        error = "cannot start " + program + ": " + std::strerror(rc);
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        return false;
    }
    m_pid = pid;
    m_out = outPipe[0];
    m_err = errPipe[0];
    ::fcntl(m_out, F_SETFL, ::fcntl(m_out, F_GETFL) | O_NONBLOCK);
    ::fcntl(m_err, F_SETFL, ::fcntl(m_err, F_GETFL) | O_NONBLOCK);
    m_exited = false;
    return true;
}

void ChildProcess::closeStdout()
{
    if (m_out >= 0) ::close(m_out);
    m_out = -1;
}

void ChildProcess::closeStderr()
{
    if (m_err >= 0) ::close(m_err);
    m_err = -1;
}

bool ChildProcess::poll()
{
    if (m_pid <= 0 || m_exited) return m_exited;
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
    if (r == m_pid) {
        m_exited = true;
        if (WIFEXITED(status)) {
            m_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            m_code = -1;
            m_signal = WTERMSIG(status);
        }
    } else if (r < 0 && errno == ECHILD) {
        // Someone else reaped it (a SIGCHLD handler set to SIG_IGN): the status is lost.
        m_exited = true;
    }
    return m_exited;
}

std::string ChildProcess::describeExit() const
{
    if (!m_exited) return m_pid > 0 ? "running" : "not started";
    if (m_signal) return "killed by signal " + std::to_string(m_signal) + " (" + signalName(m_signal) + ")";
    if (m_code >= 0) return "exited with code " + std::to_string(m_code);
    return "ended (exit status unknown)";
}

void ChildProcess::signal(int sig)
{
    if (!running()) return;
    if (::kill(-m_pid, sig) != 0) ::kill(m_pid, sig);
}

} // namespace ks::live
