#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks {

// The four shape arguments Kineto records per op (record_shapes=True), parsed without allocating per
// call: each top-level element is an integer list (a tensor's dims or strides), a string, a number,
// or something else (nested lists of a TensorList, objects). Reused across ops.
class OpArgList {
public:
    enum class Kind : uint8_t { IntList, String, Number, Null, Other };
    struct Item {
        Kind kind = Kind::Other;
        uint32_t first = 0; // IntList: index into values
        uint32_t size = 0;
        std::string_view text; // String: the raw characters between the quotes
    };

    // Parses a JSON array; false (and empty) when the text is not one.
    bool parse(std::string_view json);
    size_t size() const { return m_items.size(); }
    const Item& operator[](size_t i) const { return m_items[i]; }
    bool isIntList(size_t i) const { return i < size() && m_items[i].kind == Kind::IntList; }
    // Non-empty integer list (a tensor argument that was given).
    bool isTensor(size_t i) const { return isIntList(i) && m_items[i].size > 0; }
    std::vector<int64_t> ints(size_t i) const;
    std::string_view str(size_t i) const
    {
        return i < size() && m_items[i].kind == Kind::String ? m_items[i].text : "";
    }

private:
    std::vector<Item> m_items;
    std::vector<int64_t> m_values;
};

// A parameter value as Python's str() prints it in TraceLens's "param: ..." columns.
struct ParamValue {
    std::string text; // empty for None
};
inline ParamValue pv(std::string s)
{
    return ParamValue{std::move(s)};
}

// Concrete Inputs strings as Python's ast.literal_eval reads them: "[-1]", "[True, False]".
bool parseIntListText(std::string_view s, std::vector<int64_t>& out);
bool parseBoolListText(std::string_view s, std::vector<bool>& out);
bool isTrueText(std::string_view s);
double product(const std::vector<int64_t>& v); // 1 for an empty shape, as math.prod

// Python's str() of the values TraceLens's param columns hold.
std::string pyStr(std::string_view s);
std::string pyOptStr(std::string_view s, bool present); // None when absent
std::string pyBool(bool b);
std::string pyTuple(const std::vector<int64_t>& v);
std::string pyTupleOfStrings(std::initializer_list<std::pair<std::string_view, bool>> items);
std::string pyBoolList(const std::vector<bool>& v);
std::string pyFloat(double d);

// Bytes per element of a torch dtype name as TraceLens's name2bpe maps it (case-insensitive);
// 0 when unknown.
int bytesPerElement(std::string_view dtype);

} // namespace ks
