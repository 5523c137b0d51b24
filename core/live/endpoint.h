#pragma once

// Unix domain sockets for live sessions. Session sockets live in a private directory (mode 0700,
// owned by the user, never a symlink), and a connection is only accepted from a process of the
// same user (SO_PEERCRED), so another user on the machine can neither watch nor feed a session.

#include <string>

namespace ks::live {

// $XDG_RUNTIME_DIR/kinetoscope when that is usable, else $TMPDIR/kinetoscope-<uid> (TMPDIR
// defaulting to /tmp); created if missing. When that one is not safe (a symlink, another user's,
// open to others and not ours to fix: left there by someone else, or planted), a fresh private
// directory $TMPDIR/kinetoscope-<uid>-XXXXXX is made instead (the same one for the rest of the
// process) and warning says so. Empty with a reason only when no safe directory can be had.
std::string privateSocketDir(std::string& error, std::string* warning = nullptr);

// Removes a directory and everything in it (a target may have made subdirectories in its window
// directory); symbolic links in it are removed, not followed. False when something stayed.
bool removeTree(const std::string& dir);

// Removes what sessions killed without cleaning up left in dir: their sockets
// ("<tag>-<pid>-<n>.sock") and window directories ("windows-<pid>-XXXXXX") whose process is gone.
// Returns how many were removed.
int removeStaleSessionFiles(const std::string& dir);

// A fresh socket path in the private directory ("<dir>/<tag>-<pid>-<n>.sock").
std::string newEndpointPath(const std::string& tag, std::string& error);

// Listening, non-blocking, close-on-exec socket bound at path (an existing socket file there is
// replaced). -1 with a reason on failure.
int listenUnix(const std::string& path, std::string& error);

// Accepts one pending connection. Returns the fd (non-blocking, close-on-exec), or -1: with an
// empty error when nothing was pending, else why it was refused (another user's process...).
// resourceError is set when accept() itself failed (EMFILE, ENFILE, ENOBUFS, ENOMEM...): the
// connection is still pending and retrying at once would only spin.
int acceptPeer(int listenFd, int& peerPid, std::string& error, bool* resourceError = nullptr);

// Connects to a session socket (blocking, close-on-exec). -1 with a reason on failure.
int connectUnix(const std::string& path, std::string& error);

// "unix:/path" or "/path" -> "/path"; empty when the endpoint is not a Unix socket path.
std::string endpointPath(const std::string& endpoint);

} // namespace ks::live
