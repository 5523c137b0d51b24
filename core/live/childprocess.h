#pragma once

#include <string>
#include <vector>

namespace ks::live {

// A launched target: its own process group (so a stop reaches its workers too, like Ctrl+C in a
// terminal), stdin from /dev/null, stdout and stderr on non-blocking pipes.
class ChildProcess {
public:
    struct Options {
        std::vector<std::string> argv; // argv[0] is looked up in the PATH of env when it has no '/'
        std::string workdir;           // empty: the current directory
        std::vector<std::string> env;  // full environment, KEY=VALUE
    };

    ChildProcess() = default;
    ~ChildProcess(); // a child still running is killed (SIGKILL to its group) and reaped
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Starts the program. False with a one-line reason (program not found, not executable, bad
    // working directory...).
    bool start(const Options& options, std::string& error);

    int pid() const { return m_pid; }
    int stdoutFd() const { return m_out; }
    int stderrFd() const { return m_err; }
    void closeStdout();
    void closeStderr();

    // Reaps the child if it has exited; true once it has.
    bool poll();
    bool exited() const { return m_exited; }
    bool running() const { return m_pid > 0 && !m_exited; }
    // Exit code, or -1 when it ended by a signal.
    int exitCode() const { return m_code; }
    int termSignal() const { return m_signal; }
    // "exited with code 0", "killed by signal 9 (SIGKILL)".
    std::string describeExit() const;

    // Sends sig to the child's process group (falls back to the child alone).
    void signal(int sig);

    // The absolute path argv[0] resolves to in env's PATH, or empty with a reason.
    static std::string resolveProgram(const std::string& program, const std::vector<std::string>& env,
                                      const std::string& workdir, std::string& error);

private:
    int m_pid = -1;
    int m_out = -1;
    int m_err = -1;
    bool m_exited = false;
    int m_code = -1;
    int m_signal = 0;
};

} // namespace ks::live
