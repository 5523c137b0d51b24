#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ks {

// Writes a file so that readers only ever see the old content or the complete new content: the
// bytes go to a temporary file in the target's directory, which is flushed to disk and renamed over
// the target on commit(). Any failure (or destruction without commit) removes the temporary file
// and leaves the target untouched. Optionally gzip-compresses on the way (one gzip member, like
// Python's gzip module writes). A replaced file keeps its permission bits; a symlink target is
// written through (the file it points to is replaced, the link stays).
//
// The temporary file is ".<name>.ks-<pid>-<random>.tmp". A program that calls removeTempsOnSignals()
// removes its open ones when SIGINT, SIGTERM or SIGHUP ends it. A process killed mid-write (kill -9,
// OOM) cannot remove them, so open() removes such leftovers from the directory it writes to: files
// named that way, owned by this user, untouched for a minute, whose pid no longer exists. A file of a
// live process, or of someone else's program, is never touched.
//
// Used by every exporter (traces, tables, memory timelines, recordings). Not thread-safe.
class AtomicFile {
public:
    enum class Compression {
        None,
        Gzip,
        BySuffix, // gzip when the target's name ends in ".gz"
    };

    struct Options {
        Compression compression = Compression::BySuffix;
        // zlib level 1-9. Python's gzip defaults to 9; 6 is zlib's default and several times faster
        // on multi-GB traces for a few percent more output.
        int gzipLevel = 6;
        // Bytes buffered before each write to the file (and before each deflate call).
        size_t bufferSize = 1 << 20;
        // Give the gzip member the header Python's gzip module writes (FNAME = the target's base name
        // without ".gz", OS = 255, the current time), as torch's .gz exports have.
        bool pythonGzipHeader = false;
    };

    explicit AtomicFile(std::string path);
    AtomicFile(std::string path, const Options& options);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Creates the temporary file. False (see error()) when it cannot be created.
    bool open();
    bool isOpen() const;
    // Appends bytes. After the first failure every call returns false and commit() fails.
    bool write(std::string_view data);
    // Finishes the gzip stream, flushes to disk, renames over the target and syncs the directory.
    bool commit();
    // Drops everything written so far; the target stays as it was. Safe to call at any time.
    void discard();

    const std::string& path() const { return m_path; }
    bool compressed() const;
    // The temporary file's path while open (for tests and diagnostics).
    const std::string& tempPath() const { return m_tempPath; }

    // Leftovers of dead writers untouched for this long are removed when a file is opened in their
    // directory (the wait keeps the file of a writer in another pid namespace, which looks dead here
    // but still writes).
    static constexpr int kStaleTempSeconds = 60;
    // Installs handlers for SIGINT, SIGTERM and SIGHUP (those whose action is the default) that
    // remove every temporary file open now, then end the process by the signal. For programs
    // (kinetoscope's main), not for the library inside someone else's process.
    static void removeTempsOnSignals();
    // Removes them from dir now; returns how many were removed (for tests and diagnostics).
    static size_t removeStaleTemps(const std::string& dir);
    // One line: what failed, on which file, and the system's reason.
    const std::string& error() const { return m_error; }
    // Bytes handed to write() and bytes that reached the file (equal unless compressed).
    uint64_t bytesIn() const { return m_bytesIn; }
    uint64_t bytesOut() const { return m_bytesOut; }

private:
    struct Gzip;

    bool fail(const std::string& what, int err);
    bool writeRaw(const char* data, size_t n);
    bool flushBuffer();
    bool deflateBuffer(bool finish);
    void removeTemp();

    std::string m_path;
    Options m_options;
    std::string m_tempPath;
    std::string m_error;
    std::string m_buffer;
    std::unique_ptr<Gzip> m_gzip;
    int m_fd = -1;
    int m_signalSlot = -1;
    bool m_failed = false;
    uint64_t m_bytesIn = 0;
    uint64_t m_bytesOut = 0;
};

} // namespace ks
