// A first-in first-out queue in one circular array, for the engine's per-transfer bookkeeping
// (its transfers in flight, the pieces of STOP-list transfers waiting for a list): no
// allocation per element, as std::deque makes every few elements. It grows (doubling) only
// when full, which a ring-sized reserve() keeps from happening in steady state.
#pragma once

#include <cstddef>
#include <vector>

namespace xdma {

template <typename T>
class Fifo {
public:
    void reserve(size_t capacity) {
        if (capacity > m_items.size())
            regrow(capacity);
    }
    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }
    T& front() { return m_items[m_head]; }
    const T& front() const { return m_items[m_head]; }
    T& back() { return (*this)[m_size - 1]; }
    T& operator[](size_t i) { return m_items[wrap(m_head + i)]; }
    const T& operator[](size_t i) const { return m_items[wrap(m_head + i)]; }
    void push_back(const T& value) {
        if (m_size == m_items.size())
            regrow(m_items.empty() ? 16 : 2 * m_items.size());
        m_items[wrap(m_head + m_size)] = value;
        ++m_size;
    }
    void pop_front() {
        m_head = wrap(m_head + 1);
        --m_size;
    }
    void clear() { m_head = m_size = 0; }

private:
    // An index below twice the capacity, into the array.
    size_t wrap(size_t i) const { return i >= m_items.size() ? i - m_items.size() : i; }
    void regrow(size_t capacity) {
        std::vector<T> items(capacity);
        for (size_t i = 0; i < m_size; ++i)
            items[i] = (*this)[i];
        m_items.swap(items);
        m_head = 0;
    }

    std::vector<T> m_items;
    size_t m_head = 0, m_size = 0;
};

}  // namespace xdma
