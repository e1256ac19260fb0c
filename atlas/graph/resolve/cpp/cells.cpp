// Interned strings, values and constants, sets of values, and the cells (atlas/graph/resolve/cells.py).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver.h"

namespace atlas {

static uint64_t hash_text(std::string_view s) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a, then mixed
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211ULL;
    return mix(h);
}

Id Strings::intern(std::string_view s) {
    uint64_t h = hash_text(s);
    if ((text.size() + 1) * 2 > slots.size()) {
        slots.assign(slots.empty() ? 4096 : slots.size() * 2, 0);
        for (uint32_t i = 0; i < text.size(); i++) {
            size_t at = hashes[i] & (slots.size() - 1);
            while (slots[at])
                at = (at + 1) & (slots.size() - 1);
            slots[at] = i + 1;
        }
    }
    size_t at = h & (slots.size() - 1);
    for (; slots[at]; at = (at + 1) & (slots.size() - 1))
        if (hashes[slots[at] - 1] == h && text[slots[at] - 1] == s)
            return slots[at] - 1;
    Id id = (Id)text.size();
    text.emplace_back(s);
    hashes.push_back(h);
    slots[at] = id + 1;
    return id;
}

bool has(const Span<Id> &sorted, Id id) {
    const Id *at = std::lower_bound(sorted.begin(), sorted.end(), id);
    return at != sorted.end() && *at == id;
}

// -- constants and values ------------------------------------------------------------------------------------------

static Const canonical(const Const &c) {
    switch (c.kind) {
    case ConstKind::Bool:
        return Const{ConstKind::Int, c.number, NO};
    case ConstKind::Float: {
        double d;
        std::memcpy(&d, &c.number, sizeof d);
        if (std::floor(d) == d && std::fabs(d) < 9.2e18)
            return Const{ConstKind::Int, (int64_t)d, NO};
        return c;
    }
    default:
        return c;
    }
}

Id Solver::konst(const Const &c) {
    if (Id *found = const_ids.find(c))
        return *found;
    Const canon_c = canonical(c);
    Id canon_id = canon_c == c ? (Id)consts.size() : konst(canon_c);
    Id id = (Id)consts.size();
    consts.push_back(c);
    const_canon.push_back(canon_id);
    const_ids[c] = id;
    return id;
}

Id Solver::value(Tag tag, Id a, Id b) {
    Value key{tag, a, b};
    if (Id *found = value_ids.find(key))
        return *found;
    Id canon_id = NO;
    if (tag == T_K && const_canon[a] != a)
        canon_id = value(T_K, const_canon[a]);
    Id id = (Id)values.size();
    values.push_back(key);
    canon.push_back(canon_id == NO ? id : canon_id);
    value_ids[key] = id;
    return id;
}

// Sets are sorted by canonical id: equal values (by Python's ==) meet there, and the first one added stays.
bool Solver::add(VSet &s, Id value) const {
    Id c = canon[value];
    Id *at = std::lower_bound(s.begin(), s.end(), c, [this](Id x, Id key) { return canon[x] < key; });
    if (at != s.end() && canon[*at] == c)
        return false;
    s.insert(at, value);
    return true;
}

void Solver::merge(VSet &into, const VSet &from) const {
    if (from.empty())
        return;
    if (into.empty()) {
        into = from;
        return;
    }
    if (subset(from, into))
        return;
    VSet out;
    out.reserve((uint32_t)(into.size() + from.size()));
    size_t i = 0, j = 0;
    while (i < into.size() && j < from.size()) {
        Id a = canon[into[i]], b = canon[from[j]];
        if (a < b)
            out.push_back(into[i++]);
        else if (b < a)
            out.push_back(from[j++]);
        else {
            out.push_back(into[i++]);
            j++;
        }
    }
    out.append(into.begin() + i, into.end());
    out.append(from.begin() + j, from.end());
    into = std::move(out);
}

bool Solver::subset(const VSet &a, const VSet &b) const {
    if (a.size() > b.size())
        return false;
    size_t j = 0;
    for (Id x : a) {
        Id c = canon[x];
        while (j < b.size() && canon[b[j]] < c)
            j++;
        if (j == b.size() || canon[b[j]] != c)
            return false;
        j++;
    }
    return true;
}

// -- cells ----------------------------------------------------------------------------------------------------------

static void add_reader(Cell &cell, uint32_t reader) {
    if (!cell.has_readers) {
        cell.has_readers = true;
        cell.readers.clear();
        cell.readers.push_back(reader);
    } else if (cell.readers.empty() || cell.readers.back() != reader) {
        cell.readers.push_back(reader);
    }
}

Cell &Solver::watch(const Key &key) {
    Cell &cell = cells[key];
    add_reader(cell, reader);
    return cell;
}

void Solver::write_slot(Id alloc, Id key, const VSet &vals, bool strong) {
    if (vals.empty())
        return;
    Key k = slot(alloc, key);
    Cell &cell = cells[k];
    if (!cell.written)
        slot_keys.at(alloc).push_back(key);  // the key as this first write made it (Python keeps that tuple)
    write_cell(k, cell, vals, strong);
}

void Solver::write(const Key &key, const VSet &vals, bool strong) {
    if (!vals.empty())
        write_cell(key, cells[key], vals, strong);
}

void Solver::write_cell(const Key &key, Cell &cell, const VSet &vals, bool strong) {
    if (!cell.written) {
        cell.written = true;
        if (key.tag == C_S)  // (write_slot has put the key in slot_keys)
            mark(Key{C_SLOTS, key.a, NO});
    }
    if (key.tag == C_S)
        note_pr(key.a, vals);
    bool made = false;
    uint32_t last = cell.last, *found = &last;  // the last writer first: a statement run again writes as before
    if (last == NO || writers[last].scope != ctx.scope || writers[last].idx != ctx.idx ||
        writers[last].strong != strong)
        found = &writer_of.get(WriterKey{&cell, ctx.scope, ctx.idx, strong}, &made);
    uint32_t &at = *found;
    bool visible = cell.flow;  // a flow-sensitive read of this cell sees each writer
    if (made) {
        at = writers.push_back(Writer{ctx.scope, ctx.idx, strong, NO, vals});
        if (cell.last == NO)
            cell.first = at;
        else
            writers[cell.last].next = at;
        cell.last = at;
        cell.num_writers++;
        if (strong) {
            cell.strong.push_back(StrongAt{ctx.scope, ctx.idx});
            visible = true;
        }
    } else if (!subset(vals, writers[at].values)) {
        merge(writers[at].values, vals);
    } else {
        return;
    }
    if (!subset(vals, cell.unioned)) {
        merge(cell.unioned, vals);
        visible = true;
    }
    changed = true;
    if (visible)
        mark(key, &cell);
    else  // the union is what every read so far saw, and it is the same: no reader needs to run again
        num_changes++;
}

void Solver::mark(const Key &key, Cell *cell) {
    num_changes++;
    if (!cell && !(cell = cells.find(key)))
        return;
    if (cell->has_readers && !cell->readers.empty()) {
        for (uint32_t i : cell->readers)
            if (i < stale.size())
                stale[i] = 1;
        cell->has_readers = false;
        cell->readers.clear();
    }
}

VSet Solver::read(const Key &key, bool local) {
    Cell &cell = cells[key];
    add_reader(cell, reader);
    if (!local || cell.strong.empty() || !cell.written || cell.num_writers == 1)
        return cell.unioned;
    int64_t last = -1;
    for (const StrongAt &s : cell.strong)
        if (s.scope == ctx.scope && last < s.idx && s.idx < ctx.idx)
            last = s.idx;
    if (last < 0)
        return cell.unioned;
    cell.flow = true;
    VSet out;
    bool keep_others = key.tag != C_V || scope_at(key.a).kind == K_MODULE;
    for (uint32_t w = cell.first; w != NO; w = writers[w].next) {
        const Writer &writer = writers[w];
        if (writer.scope == ctx.scope) {
            if (last <= writer.idx && writer.idx <= ctx.idx)
                merge(out, writer.values);
        } else if (keep_others) {
            merge(out, writer.values);
        }
    }
    return out;
}

}  // namespace atlas
