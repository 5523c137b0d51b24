#pragma once

#include "util/largebuffer.h"

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
    void allocate(size_t n) { m_data.reset(static_cast<T*>(allocateLarge(n * sizeof(T)))); }
    bool allocated() const { return m_data != nullptr; }
    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }
    T* data() { return m_data.get(); }

private:
    struct Free {
        void operator()(T* p) const { freeLarge(p); }
    };
    std::unique_ptr<T[], Free> m_data;
};

} // namespace ks
