#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ks::record {

// The forward → backward arrows Kineto draws ("fwdbwd" flows) for recorded operators: autograd
// numbers the ops it records (sequence number) and tells each backward function the forward
// thread's number, so a backward function (seq, fwd thread) belongs to the forward op with that
// sequence number on that thread. As torch 2.x's profiler_kineto.cpp does: ops are visited in the
// order they end; of the forward ops of a key the one that began last (on a tie, the one that
// ended last) is the arrow's start, since autograd numbers an op when the op that records the
// backward node runs; the first backward op of a key to end takes the arrow, and the key is then
// spent until a forward op numbers it again.
class FwdBwdLinks {
public:
    struct End {
        uint64_t pid = 0;
        uint64_t tid = 0;
        uint64_t startTicks = 0;
        uint64_t endTicks = 0;
    };
    struct Link {
        uint64_t id; // flow id, from 1
        End forward;
        End backward;
    };

    // torchThread: the recording thread's number in torch (RecordFunction::currentThreadId()).
    void forward(int64_t seq, uint64_t torchThread, const End& e);
    void backward(int64_t seq, uint64_t fwdThread, const End& e);
    // The arrows, in the order their backward ops end.
    std::vector<Link> links() const;

private:
    using Key = std::pair<int64_t, uint64_t>;
    struct Op {
        Key key;
        End end;
        bool backward;
    };
    std::vector<Op> m_ops;
};

} // namespace ks::record
