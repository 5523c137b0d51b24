#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ks::record {

// The forward → backward arrows Kineto draws ("fwdbwd" flows) for recorded operators: autograd
// numbers the ops it records (sequence number) and tells each backward function the forward
// thread's number, so a backward function (seq, fwd thread) belongs to the forward op with that
// sequence number on that thread. As torch does, the first forward op of a key (the earliest, the
// outermost) is the arrow's start, and every backward op with the key gets an arrow from it.
class FwdBwdLinks {
public:
    struct End {
        uint64_t pid = 0;
        uint64_t tid = 0;
        uint64_t startTicks = 0;
    };
    struct Link {
        uint64_t id; // flow id, from 1
        End forward;
        End backward;
    };

    // torchThread: the recording thread's number in torch (RecordFunction::currentThreadId()).
    void forward(int64_t seq, uint64_t torchThread, const End& e);
    void backward(int64_t seq, uint64_t fwdThread, const End& e);
    // Every backward op whose forward op was seen, in the order the backward ops were given.
    std::vector<Link> links() const;

private:
    using Key = std::pair<int64_t, uint64_t>;
    std::map<Key, End> m_forward;
    std::vector<std::pair<Key, End>> m_backward;
};

} // namespace ks::record
