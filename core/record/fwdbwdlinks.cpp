#include "core/record/fwdbwdlinks.h"

#include <algorithm>
#include <map>

namespace ks::record {

void FwdBwdLinks::forward(int64_t seq, uint64_t torchThread, const End& e)
{
    m_ops.push_back(Op{{seq, torchThread}, e, false});
}

void FwdBwdLinks::backward(int64_t seq, uint64_t fwdThread, const End& e)
{
    m_ops.push_back(Op{{seq, fwdThread}, e, true});
}

std::vector<FwdBwdLinks::Link> FwdBwdLinks::links() const
{
    std::vector<const Op*> order;
    order.reserve(m_ops.size());
    for (const Op& op : m_ops)
        order.push_back(&op);
    // Stable: ops that end at the same tick keep the order they were given (children first).
    std::stable_sort(order.begin(), order.end(),
                     [](const Op* a, const Op* b) { return a->end.endTicks < b->end.endTicks; });
    std::map<Key, const End*> open;
    std::vector<Link> out;
    uint64_t id = 1;
    for (const Op* op : order) {
        if (op->backward) {
            auto it = open.find(op->key);
            if (it == open.end()) continue;
            out.push_back(Link{id++, *it->second, op->end});
            open.erase(it);
        } else {
            const End*& fwd = open[op->key];
            if (!fwd || op->end.startTicks >= fwd->startTicks) fwd = &op->end;
        }
    }
    return out;
}

} // namespace ks::record
