// Containers for the C++ resolver, made for its many small sets and its millions of cells: a vector that holds a few
// items inline, an arena, a chunked store with stable addresses, an open-addressing table, id-indexed vectors.
// Freeing the resolver's state is then a few hundred frees, not millions.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace atlas {

inline uint64_t mix(uint64_t x) {  // splitmix64's finalizer
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A vector of trivially copyable items, the first N held inline (no allocation for small sets).
template <typename T, unsigned N>
class SmallVec {
    static_assert(std::is_trivially_copyable<T>::value, "SmallVec holds plain items");
    T *data_;
    uint32_t size_ = 0, cap_ = N;
    T inline_[N];

    void grow(uint32_t need) {
        uint32_t cap = cap_ * 2 > need ? cap_ * 2 : need;
        T *fresh = static_cast<T *>(std::malloc(sizeof(T) * cap));
        if (!fresh)
            throw std::bad_alloc();
        std::memcpy(fresh, data_, sizeof(T) * size_);
        if (data_ != inline_)
            std::free(data_);
        data_ = fresh;
        cap_ = cap;
    }

public:
    SmallVec() : data_(inline_) {}
    SmallVec(std::initializer_list<T> items) : data_(inline_) {
        for (const T &x : items)
            push_back(x);
    }
    SmallVec(const SmallVec &o) : data_(inline_) {
        reserve(o.size_);
        std::memcpy(data_, o.data_, sizeof(T) * o.size_);
        size_ = o.size_;
    }
    SmallVec(SmallVec &&o) noexcept : data_(inline_) { take(o); }
    SmallVec &operator=(const SmallVec &o) {
        if (this != &o) {
            size_ = 0;
            reserve(o.size_);
            std::memcpy(data_, o.data_, sizeof(T) * o.size_);
            size_ = o.size_;
        }
        return *this;
    }
    SmallVec &operator=(SmallVec &&o) noexcept {
        if (this != &o) {
            if (data_ != inline_)
                std::free(data_);
            data_ = inline_;
            cap_ = N;
            size_ = 0;
            take(o);
        }
        return *this;
    }
    ~SmallVec() {
        if (data_ != inline_)
            std::free(data_);
    }
    void take(SmallVec &o) noexcept {
        if (o.data_ == o.inline_) {
            std::memcpy(inline_, o.inline_, sizeof(T) * o.size_);
        } else {
            data_ = o.data_;
            cap_ = o.cap_;
            o.data_ = o.inline_;
            o.cap_ = N;
        }
        size_ = o.size_;
        o.size_ = 0;
    }
    void swap(SmallVec &o) noexcept {
        SmallVec t(std::move(o));
        o = std::move(*this);
        *this = std::move(t);
    }
    void reserve(uint32_t n) {
        if (n > cap_)
            grow(n);
    }
    void push_back(const T &x) {
        if (size_ == cap_)
            grow(size_ + 1);
        data_[size_++] = x;
    }
    T *insert(T *at, const T &x) {
        size_t i = at - data_;
        if (size_ == cap_)
            grow(size_ + 1);
        std::memmove(data_ + i + 1, data_ + i, sizeof(T) * (size_ - i));
        data_[i] = x;
        size_++;
        return data_ + i;
    }
    void append(const T *first, const T *last) {
        uint32_t n = (uint32_t)(last - first);
        reserve(size_ + n);
        std::memcpy(data_ + size_, first, sizeof(T) * n);
        size_ += n;
    }
    void resize_down(uint32_t n) { size_ = n < size_ ? n : size_; }
    void clear() { size_ = 0; }
    T *begin() { return data_; }
    T *end() { return data_ + size_; }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }
    T &back() { return data_[size_ - 1]; }
};

// A bump allocator for plain items that live as long as it does.
class Arena {
    std::vector<std::unique_ptr<char[]>> blocks_;
    size_t used_ = 0, size_ = 0;

public:
    template <typename T>
    T *alloc(size_t n = 1) {
        static_assert(std::is_trivially_destructible<T>::value, "the arena never runs destructors");
        size_t bytes = sizeof(T) * n, align = alignof(T);
        size_t at = (used_ + align - 1) & ~(align - 1);
        if (blocks_.empty() || at + bytes > size_) {
            size_ = bytes > (1u << 20) ? bytes : (1u << 20);
            blocks_.emplace_back(new char[size_]);
            at = 0;
        }
        used_ = at + bytes;
        return new (blocks_.back().get() + at) T[n]();
    }
};

// A contiguous run of items in an arena.
template <typename T>
struct Span {
    T *data = nullptr;
    uint32_t n = 0;
    T *begin() const { return data; }
    T *end() const { return data + n; }
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    T &operator[](size_t i) const { return data[i]; }
};

// Items appended in chunks: their addresses never change.
template <typename T>
class Chunked {
    static constexpr uint32_t BITS = 12;
    std::vector<std::unique_ptr<T[]>> chunks_;
    uint32_t size_ = 0;

public:
    uint32_t push_back(T &&x) {
        if ((size_ >> BITS) == chunks_.size())
            chunks_.emplace_back(new T[1u << BITS]);
        chunks_[size_ >> BITS][size_ & ((1u << BITS) - 1)] = std::move(x);
        return size_++;
    }
    T &operator[](uint32_t i) { return chunks_[i >> BITS][i & ((1u << BITS) - 1)]; }
    const T &operator[](uint32_t i) const { return chunks_[i >> BITS][i & ((1u << BITS) - 1)]; }
    uint32_t size() const { return size_; }
};

// An open-addressing hash table: keys and values in a Chunked store (insertion order, stable addresses), a probe
// array of their indices. Hash(key) must spread keys over all 64 bits.
template <typename K, typename V, typename Hash>
class Table {
    struct Entry {
        K key;
        V value;
    };
    Chunked<Entry> entries_;
    std::vector<uint64_t> slots_;  // the key's hash (high half) and entry index + 1 (low half); 0 is empty
    size_t mask_ = 0;

    static uint64_t slot(uint64_t hash, uint32_t index) { return (hash & 0xffffffff00000000ULL) | (index + 1); }

    void rehash() {
        size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
        std::vector<uint64_t> old;
        old.swap(slots_);
        slots_.assign(size, 0);
        mask_ = size - 1;
        for (uint64_t s : old) {
            if (!s)
                continue;
            uint32_t i = (uint32_t)s - 1;
            size_t at = Hash()(entries_[i].key) & mask_;
            while (slots_[at])
                at = (at + 1) & mask_;
            slots_[at] = s;
        }
    }

public:
    V *find(const K &key) {
        if (slots_.empty())
            return nullptr;
        uint64_t h = Hash()(key);
        for (size_t at = h & mask_; slots_[at]; at = (at + 1) & mask_) {
            uint64_t s = slots_[at];
            if ((s >> 32) != (h >> 32))
                continue;
            Entry &e = entries_[(uint32_t)s - 1];
            if (e.key == key)
                return &e.value;
        }
        return nullptr;
    }
    // The value of `key`, made (default) when missing; `made` says which.
    V &get(const K &key, bool *made = nullptr) {
        if ((entries_.size() + 1) * 2 > slots_.size())
            rehash();
        uint64_t h = Hash()(key);
        size_t at = h & mask_;
        for (; slots_[at]; at = (at + 1) & mask_) {
            uint64_t s = slots_[at];
            if ((s >> 32) != (h >> 32))
                continue;
            Entry &e = entries_[(uint32_t)s - 1];
            if (e.key == key) {
                if (made)
                    *made = false;
                return e.value;
            }
        }
        uint32_t i = entries_.push_back(Entry{key, V()});
        slots_[at] = slot(h, i);
        if (made)
            *made = true;
        return entries_[i].value;
    }
    V &operator[](const K &key) { return get(key); }
    uint32_t size() const { return entries_.size(); }
    const K &key_at(uint32_t i) const { return entries_[i].key; }
    V &value_at(uint32_t i) { return entries_[i].value; }
};

// A vector indexed by id, growing on writes; reads past its end give `missing`. `get` gives a copy: `at` may move
// the items (in `v.at(a) = v.get(b)`, C++17 evaluates the right side first), `view` a reference to use at once.
template <typename T>
class IdVec {
    std::vector<T> v_;
    T missing_;

public:
    explicit IdVec(T missing = T()) : missing_(missing) {}
    T get(uint32_t id) const { return id < v_.size() ? v_[id] : missing_; }
    const T &view(uint32_t id) const { return id < v_.size() ? v_[id] : missing_; }
    T &at(uint32_t id) {
        if (id >= v_.size())
            v_.resize((size_t)id + 1 + (v_.size() >> 1), missing_);
        return v_[id];
    }
};

}  // namespace atlas
