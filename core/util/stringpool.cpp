#include "core/util/stringpool.h"

#include "core/util/hash.h"

#include <cstring>
#include <stdexcept>

namespace ks {

namespace {
constexpr size_t kBlockSize = 64 * 1024;
}

StringPool::StringPool()
{
    m_slots.assign(1024, 0);
    m_mask = m_slots.size() - 1;
    intern(std::string_view());
}

StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

const char* StringPool::store(std::string_view s)
{
    if (s.empty()) return "";
    if (s.size() > kBlockSize / 4) {
        // Large strings get their own block so they do not waste the tail of a shared one.
        auto block = std::make_unique<char[]>(s.size());
        std::memcpy(block.get(), s.data(), s.size());
        const char* p = block.get();
        m_blocks.push_back(std::move(block));
        m_arenaBytes += s.size();
        return p;
    }
    if (m_left < s.size()) {
        m_blocks.push_back(std::make_unique<char[]>(kBlockSize));
        m_cursor = m_blocks.back().get();
        m_left = kBlockSize;
        m_arenaBytes += kBlockSize;
    }
    char* p = m_cursor;
    std::memcpy(p, s.data(), s.size());
    m_cursor += s.size();
    m_left -= s.size();
    return p;
}

size_t StringPool::probe(std::string_view s, uint64_t hash) const
{
    size_t i = hash & m_mask;
    while (true) {
        const uint32_t slot = m_slots[i];
        if (slot == 0) return i;
        const Entry& e = m_entries[slot - 1];
        if (e.hash == hash && e.size == s.size() && std::memcmp(e.data, s.data(), s.size()) == 0) return i;
        i = (i + 1) & m_mask;
    }
}

StringId StringPool::intern(std::string_view s)
{
    return intern(s, hashString(s));
}

StringId StringPool::intern(std::string_view s, uint64_t hash)
{
    size_t i = probe(s, hash);
    if (m_slots[i] != 0) return StringId(m_slots[i] - 1);
    if (s.size() > UINT32_MAX) throw std::length_error("string too long to intern");
    const uint32_t id = uint32_t(m_entries.size());
    m_entries.push_back(Entry{store(s), uint32_t(s.size()), hash});
    m_slots[i] = id + 1;
    if (m_entries.size() * 2 > m_slots.size()) grow();
    return StringId(id);
}

StringId StringPool::find(std::string_view s) const
{
    const size_t i = probe(s, hashString(s));
    return m_slots[i] == 0 ? StringId() : StringId(m_slots[i] - 1);
}

void StringPool::grow()
{
    std::vector<uint32_t> slots(m_slots.size() * 2, 0);
    const size_t mask = slots.size() - 1;
    for (uint32_t slot : m_slots) {
        if (slot == 0) continue;
        size_t i = m_entries[slot - 1].hash & mask;
        while (slots[i] != 0)
            i = (i + 1) & mask;
        slots[i] = slot;
    }
    m_slots = std::move(slots);
    m_mask = mask;
}

size_t StringPool::bytesUsed() const
{
    return m_arenaBytes + m_entries.bytesUsed() + m_slots.size() * sizeof(uint32_t);
}

} // namespace ks
