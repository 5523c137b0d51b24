#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// Keys repeated within one JSON object (an event), as the parser meets them. Known keys are told
// apart by a bit each; other keys are compared by their raw (still escaped) text. Repeats are rare
// and events have few keys, so a bit mask and a short linear list beat hashing every key.
class KeyRepeats {
public:
    void begin()
    {
        m_seen = 0;
        m_count = 0;
        m_first = nullptr;
        m_unknown.clear();
    }

    // key points just past the opening quote in the parser's buffer.
    void known(uint32_t bit, const char* key)
    {
        if (m_seen & bit) note(key);
        m_seen |= bit;
    }

    void unknown(const char* key)
    {
        // Past kMaxTracked keys, further repeats go uncounted rather than cost quadratic time.
        constexpr size_t kMaxTracked = 64;
        const std::string_view raw = rawKey(key);
        if (std::find(m_unknown.begin(), m_unknown.end(), raw) != m_unknown.end())
            note(key);
        else if (m_unknown.size() < kMaxTracked)
            m_unknown.push_back(raw);
    }

    uint32_t count() const { return m_count; }
    // The first repeated key (just past its opening quote), or null.
    const char* first() const { return m_first; }

    // The raw text of the key starting just past its opening quote (the buffer holds its closing one).
    static std::string_view rawKey(const char* k)
    {
        const char* q = k;
        while (*q != '"') {
            if (*q == '\\') ++q;
            ++q;
        }
        return std::string_view(k, size_t(q - k));
    }

private:
    void note(const char* key)
    {
        if (m_count++ == 0) m_first = key;
    }

    uint32_t m_seen = 0;
    uint32_t m_count = 0;
    const char* m_first = nullptr;
    std::vector<std::string_view> m_unknown;
};

} // namespace ks
