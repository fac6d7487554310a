// SPDX-License-Identifier: Apache-2.0
// A binary min-heap (the least first) of small keys ordered by operator<: plain integers into which the caller
// packs what orders an entry (time in the high bits, a tie-break and an index below), or small structs that
// compare as one such integer, so that a comparison is one integer compare and the sift-down picks the smaller
// child without a branch. Time-ordered queues on the hot path (the event domain's far future, a NIC's
// rate-limited queue pairs).
#ifndef CMSWITCH_MODEL_KEY_HEAP_H
#define CMSWITCH_MODEL_KEY_HEAP_H

#include <cstddef>
#include <vector>

namespace cmswitch {

template <typename Key>
class key_heap {
public:
    bool empty() const { return m_h.empty(); }
    size_t size() const { return m_h.size(); }
    const Key& top() const { return m_h.front(); }   // not empty
    void clear() { m_h.clear(); }
    // The keys in heap order (not sorted).
    const std::vector<Key>& keys() const { return m_h; }

    void push(Key k) {
        m_h.push_back(k);
        size_t i = m_h.size() - 1;
        while (i > 0) {
            const size_t p = (i - 1) / 2;
            if (!(k < m_h[p]))
                break;
            m_h[i] = m_h[p];
            i = p;
        }
        m_h[i] = k;
    }

    void pop() {   // not empty
        const Key k = m_h.back();
        m_h.pop_back();
        const size_t n = m_h.size();
        if (n == 0)
            return;
        Key* h = m_h.data();
        size_t i = 0;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= n)
                break;
            c += (c + 1 < n) & (h[c + 1] < h[c]);
            if (!(h[c] < k))
                break;
            h[i] = h[c];
            i = c;
        }
        h[i] = k;
    }

private:
    std::vector<Key> m_h;
};

}   // namespace cmswitch
#endif
