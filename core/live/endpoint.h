#pragma once

// Unix domain sockets for live sessions. Session sockets live in a private directory (mode 0700,
// owned by the user, never a symlink), and a connection is only accepted from a process of the
// same user (SO_PEERCRED), so another user on the machine can neither watch nor feed a session.

#include <string>

namespace ks::live {

// $XDG_RUNTIME_DIR/kinetoscope when that is usable, else /tmp/kinetoscope-<uid>; created if
// missing. Empty with a reason when the directory exists but is not safe (wrong owner or mode).
std::string privateSocketDir(std::string& error);

// A fresh socket path in the private directory ("<dir>/<tag>-<pid>-<n>.sock").
std::string newEndpointPath(const std::string& tag, std::string& error);

// Listening, non-blocking, close-on-exec socket bound at path (an existing socket file there is
// replaced). -1 with a reason on failure.
int listenUnix(const std::string& path, std::string& error);

// Accepts one pending connection. Returns the fd (non-blocking, close-on-exec), or -1: with an
// empty error when nothing was pending, else why it was refused (another user's process...).
int acceptPeer(int listenFd, int& peerPid, std::string& error);

// Connects to a session socket (blocking, close-on-exec). -1 with a reason on failure.
int connectUnix(const std::string& path, std::string& error);

// "unix:/path" or "/path" -> "/path"; empty when the endpoint is not a Unix socket path.
std::string endpointPath(const std::string& endpoint);

} // namespace ks::live
