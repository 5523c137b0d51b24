#pragma once

#include "core/util/bigalloc.h"

#include <cstddef>
#include <memory>
#include <type_traits>

namespace ks {

// A fixed-size per-event array that leaves its elements uninitialised: each builder writes the
// slots it later reads, so a column costs no zeroing pass, and pages of slots nobody touches (a
// lane's unused room) cost no memory at all.
template <typename T>
class EventColumn {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    void allocate(size_t n)
    {
        m_data.reset(static_cast<T*>(allocateBlock(n * sizeof(T))));
        m_data.get_deleter() = Free{n * sizeof(T), false};
    }
    // For a column of which only some ranges are written (allocateSparse()).
    void allocateSparse(size_t n)
    {
        m_data.reset(static_cast<T*>(ks::allocateSparse(n * sizeof(T))));
        m_data.get_deleter() = Free{n * sizeof(T), true};
    }
    void release() { m_data.reset(); }
    bool allocated() const { return m_data != nullptr; }
    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }
    T* data() { return m_data.get(); }
    const T* data() const { return m_data.get(); }

private:
    struct Free {
        size_t bytes = 0;
        bool sparse = false;
        void operator()(T* p) const { sparse ? freeSparse(p, bytes) : freeBlock(p, bytes); }
    };
    std::unique_ptr<T[], Free> m_data;
};

} // namespace ks
