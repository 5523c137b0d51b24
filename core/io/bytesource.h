#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ks {

// A stream of the (decompressed) JSON bytes of a trace.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Reads up to n bytes; returns 0 at the end. Throws std::runtime_error on I/O or format errors.
    virtual size_t read(char* buf, size_t n) = 0;
    // Bytes of the underlying file consumed so far and its total size (for progress).
    virtual uint64_t inputPosition() const = 0;
    virtual uint64_t inputSize() const = 0;
    virtual bool compressed() const { return false; }
    // True when a compressed stream ended before its trailer (truncated .gz).
    virtual bool truncatedInput() const { return false; }
};

// Opens a file, sniffing gzip by its magic bytes (1f 8b) rather than by its name. Returns null and
// sets error when the file cannot be opened.
std::unique_ptr<ByteSource> openByteSource(const std::string& path, std::string& error);
// Wraps bytes already in memory (gzip is detected the same way). The data must outlive the source.
std::unique_ptr<ByteSource> memoryByteSource(std::string_view data);

} // namespace ks
