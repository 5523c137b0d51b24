#pragma once

// One thread's shadow stack of Python and C calls and its prefix tree of stacks (pystack.h).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks::torchobs::pystack {

// Deeper calls share their caller's node (stacks are cut there); more distinct stacks than this on
// one thread share their caller's node too, so a program that keeps making new call paths (deep
// recursion through many functions) cannot grow the tree without bound.
constexpr uint32_t kMaxDepth = 256;
constexpr size_t kMaxNodes = size_t(1) << 20;

// A frame's text, shared by every tree (created under the GIL, never freed or changed).
struct FrameKey {
    const void* ptr; // the code object, PyMethodDef of a C function, or a module name's text
    int line;        // the line for code; -1 C functions; -2 module names
    bool operator==(const FrameKey&) const = default;
};
struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const
    {
        return std::hash<const void*>{}(k.ptr) * 31 + std::hash<int>{}(k.line);
    }
};

struct Node {
    Node* parent = nullptr;
    const std::string* frame = nullptr; // null for the root
    uint32_t depth = 0;
    uint32_t stackId = 0; // interned "Call stack" text, built on first use
};

struct ChildKey {
    const Node* parent;
    FrameKey frame;
    bool operator==(const ChildKey&) const = default;
};
struct ChildKeyHash {
    size_t operator()(const ChildKey& k) const
    {
        return std::hash<const void*>{}(k.parent) ^ (FrameKeyHash{}(k.frame) << 1);
    }
};

enum class EntryKind : uint8_t { Python, C };

struct Entry {
    Node* node;
    const void* frame; // PyFrameObject* of a Python call, the calling frame of a C call
    const void* key;   // code object / PyMethodDef
    EntryKind kind;
    bool moduleRange = false; // a module call whose python_function range this began
};

// A frame to seed a thread's stack with, read by the enabling thread.
struct SeedFrame {
    FrameKey key;
    const std::string* text;
    const void* frame;
};

// One thread's shadow stack and tree. Written only by the profile function on its owning thread
// (with the GIL), read by the operator callback on that thread; the enabling thread only leaves a
// seed, under the GIL, for the owner to apply.
struct ShadowStack {
    std::atomic<bool> active{false};
    const char* owner = nullptr; // the owning OS thread's t_tag
    std::vector<Entry> entries;
    std::deque<Node> nodes;
    std::unordered_map<ChildKey, Node*, ChildKeyHash> children;
    uint64_t prefixGeneration = 0;
    // Left by enable() for another thread; applied by that thread's first profile call.
    std::atomic<bool> seedPending{false};
    std::vector<SeedFrame> seed;

    Node* root()
    {
        if (nodes.empty()) nodes.emplace_back();
        return &nodes.front();
    }
    void reset()
    {
        entries.clear();
        children.clear();
        nodes.clear();
    }
    // text() names a new node's frame; a call seen before costs one lookup.
    template <class TextFn>
    Node* child(Node* parent, const FrameKey& key, TextFn text)
    {
        if (parent->depth >= kMaxDepth) return parent;
        auto [it, inserted] = children.try_emplace(ChildKey{parent, key}, nullptr);
        if (inserted) {
            if (nodes.size() >= kMaxNodes) {
                children.erase(it);
                return parent;
            }
            Node& n = nodes.emplace_back();
            n.parent = parent;
            n.frame = text();
            n.depth = parent->depth + 1;
            it->second = &n;
        }
        return it->second;
    }
    Node* top() { return entries.empty() ? root() : entries.back().node; }
};

} // namespace ks::torchobs::pystack
