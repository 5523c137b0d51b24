#pragma once

#include "core/util/bigalloc.h"

#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace ks {

// Append-only array of trivially copyable values with stable element addresses.
//
// Storage is a fixed directory of geometrically growing segments (1024, 1024, 2048, 4096, ...), so
// appending never moves existing elements and never reallocates the directory. One writer thread may
// append while any number of reader threads read indices below size(): the size is published with
// release semantics after the element is written. Unused capacity of the last segment is never
// touched, so it costs address space but not resident memory. Segments come from allocateBlock():
// big traces put hundreds of MB in columns, and faulting that in 4 KiB at a time is slow on VMs.
template <typename T>
class Column {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    static constexpr unsigned kBaseShift = 10;
    static constexpr size_t kBase = size_t(1) << kBaseShift;
    static constexpr unsigned kMaxSegments = 40;

    Column() = default;
    Column(const Column&) = delete;
    Column& operator=(const Column&) = delete;
    Column(Column&& other) noexcept { moveFrom(other); }
    Column& operator=(Column&& other) noexcept
    {
        if (this != &other) {
            release();
            moveFrom(other);
        }
        return *this;
    }
    ~Column() { release(); }

    size_t size() const { return m_size.load(std::memory_order_acquire); }
    bool empty() const { return size() == 0; }

    const T& operator[](size_t i) const
    {
        const auto [seg, off] = locate(i);
        return m_segments[seg][off];
    }
    T& operator[](size_t i)
    {
        const auto [seg, off] = locate(i);
        return m_segments[seg][off];
    }
    const T& back() const { return (*this)[size() - 1]; }
    T& back() { return (*this)[size() - 1]; }

    void push_back(const T& v)
    {
        const size_t n = m_size.load(std::memory_order_relaxed);
        const auto [seg, off] = locate(n);
        if (!m_segments || !m_segments[seg]) allocateSegment(seg);
        m_segments[seg][off] = v;
        m_size.store(n + 1, std::memory_order_release);
    }

    // Appends count values in one go; used by bulk loaders.
    void append(const T* values, size_t count)
    {
        size_t n = m_size.load(std::memory_order_relaxed);
        while (count > 0) {
            const auto [seg, off] = locate(n);
            if (!m_segments || !m_segments[seg]) allocateSegment(seg);
            const size_t room = segmentSize(seg) - off;
            const size_t take = room < count ? room : count;
            std::memcpy(m_segments[seg] + off, values, take * sizeof(T));
            values += take;
            count -= take;
            n += take;
        }
        m_size.store(n, std::memory_order_release);
    }

    // Grows to n elements, the new ones value-initialized, for a writer that then fills them in any
    // order (from several threads, each element by one): the new size is published right away, so
    // no reader may look until the writer is done.
    void resize(size_t n)
    {
        size_t i = m_size.load(std::memory_order_relaxed);
        if (n <= i) return;
        reserve(n);
        for (; i < n; ++i)
            (*this)[i] = T{};
        m_size.store(n, std::memory_order_release);
    }

    void reserve(size_t n)
    {
        if (n == 0) return;
        const auto [lastSeg, off] = locate(n - 1);
        (void)off;
        for (unsigned s = 0; s <= lastSeg; ++s)
            if (!m_segments || !m_segments[s]) allocateSegment(s);
    }

    // Bytes of element storage actually in use (for memory reports).
    size_t bytesUsed() const { return size() * sizeof(T); }

    // Calls fn(const T* data, size_t count, size_t firstIndex) for each contiguous run of [begin, end).
    template <typename Fn>
    void forEachSpan(size_t begin, size_t end, Fn&& fn) const
    {
        while (begin < end) {
            const auto [seg, off] = locate(begin);
            const size_t room = segmentSize(seg) - off;
            const size_t take = room < end - begin ? room : end - begin;
            fn(m_segments[seg] + off, take, begin);
            begin += take;
        }
    }

    // Index of the first element in [0, size()) for which less(element, key) is false; the column
    // must be partitioned with respect to less.
    template <typename K, typename Less>
    size_t lowerBound(const K& key, Less less, size_t first = 0, size_t last = SIZE_MAX) const
    {
        if (last == SIZE_MAX) last = size();
        size_t count = last - first;
        while (count > 0) {
            const size_t step = count / 2;
            const size_t mid = first + step;
            if (less((*this)[mid], key)) {
                first = mid + 1;
                count -= step + 1;
            } else {
                count = step;
            }
        }
        return first;
    }

    // Returns the resident but unused tail of the last segment to the kernel; call when a bulk load
    // is done. The column stays appendable: the released pages come back zeroed on the next append.
    void releaseUnusedTail()
    {
        const size_t n = size();
        if (!m_segments || n == 0) return;
        const auto [seg, off] = locate(n - 1);
        if (m_segments[seg])
            releaseBlockTail(m_segments[seg], segmentSize(seg) * sizeof(T), (off + 1) * sizeof(T));
    }

private:
    struct Location {
        unsigned segment;
        size_t offset;
    };

    static size_t segmentSize(unsigned seg) { return seg == 0 ? kBase : kBase << (seg - 1); }

    static Location locate(size_t i)
    {
        // Segment s >= 1 covers [kBase << (s-1), kBase << s); segment 0 covers [0, kBase).
        const size_t scaled = i >> kBaseShift;
        if (scaled == 0) return {0, i};
        const unsigned seg = unsigned(std::bit_width(scaled));
        return {seg, i - (kBase << (seg - 1))};
    }

    void allocateSegment(unsigned seg)
    {
        assert(seg < kMaxSegments);
        if (!m_segments) {
            m_segments = static_cast<T**>(std::calloc(kMaxSegments, sizeof(T*)));
            if (!m_segments) throw std::bad_alloc();
        }
        m_segments[seg] = static_cast<T*>(allocateBlock(segmentSize(seg) * sizeof(T)));
    }

    void release()
    {
        if (m_segments) {
            for (unsigned s = 0; s < kMaxSegments; ++s)
                if (m_segments[s]) freeBlock(m_segments[s], segmentSize(s) * sizeof(T));
            std::free(m_segments);
            m_segments = nullptr;
        }
        m_size.store(0, std::memory_order_relaxed);
    }

    void moveFrom(Column& other)
    {
        m_segments = other.m_segments;
        other.m_segments = nullptr;
        m_size.store(other.m_size.load(std::memory_order_relaxed), std::memory_order_relaxed);
        other.m_size.store(0, std::memory_order_relaxed);
    }

    // The segment directory is allocated on first append so that empty columns (many per-depth
    // indexes stay tiny) cost two words.
    T** m_segments = nullptr;
    std::atomic<size_t> m_size{0};
};

} // namespace ks
