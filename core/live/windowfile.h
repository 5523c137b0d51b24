#pragma once

#include <string>

namespace ks::live {

// Opens a torch.profiler window file named by a target's Window frame, for reading. The target is
// not trusted to name only what it wrote: the file must be a regular file inside the session's own
// window directory dir (after resolving symlinks and ".." in its directory; a symlink as the file
// itself is refused), and it is opened without blocking, so a FIFO or a device cannot stall the
// session. Returns the fd (close-on-exec, blocking again), or -1 with a one-line reason. resolved
// gets the file's path with its directory resolved (for removing it once merged).
int openWindowFile(const std::string& path, const std::string& dir, std::string& resolved,
                   std::string& error);

} // namespace ks::live
