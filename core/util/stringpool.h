#pragma once

#include "core/util/column.h"
#include "core/util/id.h"

#include <memory>
#include <string_view>
#include <vector>

namespace ks {

// Interns strings to 32-bit StringIds. Lookups by id are safe from any thread while one writer
// interns: the bytes live in stable arena blocks and the id table is an append-only Column.
// The hash index is touched only by the writer.
class StringPool {
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept;
    StringPool& operator=(StringPool&&) noexcept;
    ~StringPool();

    // Id 0 is always the empty string.
    static constexpr StringId kEmpty = StringId(0);

    StringId intern(std::string_view s);
    StringId intern(std::string_view s, uint64_t hash);
    // Returns an invalid id when the string was never interned.
    StringId find(std::string_view s) const;

    // An invalid id (an event without a name or category) reads as the empty string, so code
    // that looks a name up never has to check first.
    std::string_view view(StringId id) const
    {
        if (!id.valid()) return {};
        const Entry& e = m_entries[id.value];
        return {e.data, e.size};
    }
    std::string_view operator[](StringId id) const { return view(id); }
    uint64_t hashOf(StringId id) const { return m_entries[id.value].hash; }

    size_t size() const { return m_entries.size(); }
    size_t bytesUsed() const;

private:
    struct Entry {
        const char* data;
        uint32_t size;
        uint64_t hash;
    };

    const char* store(std::string_view s);
    void grow();
    size_t probe(std::string_view s, uint64_t hash) const;

    Column<Entry> m_entries;
    std::vector<std::unique_ptr<char[]>> m_blocks;
    char* m_cursor = nullptr;
    size_t m_left = 0;
    size_t m_arenaBytes = 0;
    // Open addressing: slot holds id+1 (0 = empty).
    std::vector<uint32_t> m_slots;
    size_t m_mask = 0;
};

} // namespace ks
