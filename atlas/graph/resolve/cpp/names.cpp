// Names and attributes (atlas/graph/resolve/names.py, atlas/graph/mro.py): scope lookup, module attributes (star
// imports included), class attributes through the MRO, bound methods and properties.
#include <algorithm>

#include "solver.h"

namespace atlas {

static const char *PLAIN_BASES[] = {"abc", "typing", "typing_extensions", "enum", "dataclasses", "builtins",
                                    "collections"};
constexpr size_t MAX_SUBCLASS_METHODS = 40;  // a name more subclasses define than this is too generic to follow

VSet Solver::lookup(Id name) {
    const Scope &scope = scope_at(ctx.scope);
    bool is_global = scope.is_global(name);
    if (scope.is_local(name) && !is_global)
        return read(Key{C_V, scope.id, name});
    Id module = scope.module;
    if (!is_global) {
        for (Id parent = scope.parent; parent != NO && !str[parent].empty();) {
            const Scope &p = scope_at(parent);
            if (p.kind == K_MODULE)
                break;
            if (p.kind != K_CLASS && p.is_local(name))
                return read(Key{C_V, p.id, name}, false);
            parent = p.parent;
        }
    }
    VSet found = module_attr(module, name, scope.id == module);
    if (!found.empty())
        return found;
    if (builtins.get(name))
        return one(value(T_B, name));
    return {};
}

VSet Solver::module_attr(Id module, Id name, bool local, std::vector<Id> *seen) {
    const Scope *scope = scope_of(module);
    VSet out;
    if (scope && scope->is_local(name))
        out = read(Key{C_V, module, name}, local);
    if (submodules.find({module, name}))
        add(out, value(T_M, joined(module, ".", name)));
    if (star_modules.get(module)) {  // only these get star imports: other modules need not depend on them
        depend(Key{C_STARS, module, NO});
        auto found = stars.find(module);
        if (out.empty() && found != stars.end() && !found->second.empty()) {
            std::vector<Id> own_seen;
            if (!seen)
                seen = &own_seen;
            seen->push_back(module);
            std::vector<Id> list = found->second;
            for (Id star : list)
                if (std::find(seen->begin(), seen->end(), star) == seen->end())
                    merge(out, module_attr(star, name, false, seen));
        }
    }
    return out;
}

// -- the MRO ------------------------------------------------------------------------------------------------------

static bool external(const std::string &s) { return s.rfind("x:", 0) == 0 || s.rfind("b:", 0) == 0; }

std::vector<Id> linearize(Id cls, const std::unordered_map<Id, std::vector<std::vector<Id>>> &bases,
                          const Strings &str, std::vector<Id> &active) {
    if (std::find(active.begin(), active.end(), cls) != active.end())
        return {cls};
    active.push_back(cls);
    std::vector<Id> direct;
    auto it = bases.find(cls);
    if (it != bases.end())
        for (auto &alts : it->second)
            direct.insert(direct.end(), alts.begin(), alts.end());
    std::vector<std::vector<Id>> seqs;
    for (Id b : direct)
        seqs.push_back(external(str[b]) ? std::vector<Id>{b} : linearize(b, bases, str, active));
    active.pop_back();
    seqs.push_back(direct);
    std::vector<Id> out{cls};
    for (;;) {
        seqs.erase(std::remove_if(seqs.begin(), seqs.end(), [](auto &s) { return s.empty(); }), seqs.end());
        if (seqs.empty())
            return out;
        Id head = NO;
        for (auto &seq : seqs) {
            Id candidate = seq[0];
            bool in_tail = false;
            for (auto &s : seqs)
                if (std::find(s.begin() + 1, s.end(), candidate) != s.end()) {
                    in_tail = true;
                    break;
                }
            if (!in_tail) {
                head = candidate;
                break;
            }
        }
        if (head == NO) {  // no C3 order: depth-first, duplicates dropped
            std::vector<Id> all = out;
            for (auto &s : seqs)
                all.insert(all.end(), s.begin(), s.end());
            std::vector<Id> dedup;
            std::unordered_set<Id> seen;
            for (Id c : all)
                if (seen.insert(c).second)
                    dedup.push_back(c);
            return dedup;
        }
        out.push_back(head);
        for (auto &s : seqs)
            if (!s.empty() && s[0] == head)
                s.erase(s.begin());
    }
}

const Mro &Solver::mro_walk(Id cls) {
    Mro *found = mro_memo.get(cls);
    if (!found) {
        std::vector<Id> active;
        Mro m;
        m.mro = linearize(cls, bases, str, active);
        for (Id k : m.mro) {
            const std::string &text = str[k];
            if (text.rfind("x:", 0) == 0) {
                std::string rest = text.substr(2);
                std::string head = rest.substr(0, rest.find('.'));
                bool plain = std::find_if(std::begin(PLAIN_BASES), std::end(PLAIN_BASES),
                                          [&](const char *p) { return head == p; }) != std::end(PLAIN_BASES);
                m.walk.push_back(MroEntry{str.intern(rest), (uint8_t)(plain ? W_PLAIN : W_EXTERNAL)});
            } else if (text.rfind("b:", 0) == 0) {
                m.walk.push_back(MroEntry{k, W_BUILTIN});
            } else {
                m.walk.push_back(MroEntry{k, W_CLASS});
                m.internal.push_back(k);
            }
        }
        for (Id k : m.mro)
            mro_users.at(k).push_back(cls);
        found = mro_memo.at(cls) = &mros[mros.push_back(std::move(m))];
    }
    if (mro_read.get(cls) != num_evaluated) {  // once per statement run (bases change rarely)
        mro_read.at(cls) = num_evaluated;
        for (Id k : found->internal)
            depend(Key{C_B, k, NO});
    }
    return *found;
}

VSet Solver::class_attr(Id cls, Id name, Id receiver, Id start_after, std::vector<Cell *> *cell_list) {
    const Mro &walk_of = mro_walk(cls);  // (only define_class drops memos: nothing below runs it)
    if (!cell_list || walk_of.internal.empty() || walk_of.internal[0] != cls)
        depend(Key{C_A, cls, name});
    size_t from = 0;
    if (start_after != NO) {
        auto at = std::find(walk_of.mro.begin(), walk_of.mro.end(), start_after);
        from = at == walk_of.mro.end() ? walk_of.walk.size() : (size_t)(at - walk_of.mro.begin()) + 1;
    }
    size_t i = 0;
    for (size_t w = from; w < walk_of.walk.size(); w++) {
        const MroEntry &entry = walk_of.walk[w];
        if (entry.what != W_CLASS) {
            if (entry.what == W_PLAIN)
                continue;
            if (entry.what == W_EXTERNAL)
                return one(value(T_X, joined(entry.name, ".", name)));
            return {};
        }
        i++;
        const Scope *scope = scope_of(entry.name);
        if (!scope)
            continue;
        bool defined = scope->is_local(name);
        Cell *cell = cell_list ? (*cell_list)[i - 1] : &watch(Key{C_A, entry.name, name});
        if (!defined && !cell->written)
            continue;
        VSet vals = defined ? read(Key{C_V, entry.name, name}, false) : VSet{};
        merge(vals, cell->unioned);
        VSet out;
        for (Id v : vals)
            add(out, bind_attr(v, receiver, cls));
        return out;
    }
    return {};
}

VSet Solver::subclass_methods(Id cls, Id name) {
    VSet out;
    std::unordered_set<Id> seen{cls};
    std::vector<Id> todo{cls};
    while (!todo.empty()) {
        Id c = todo.back();
        todo.pop_back();
        depend(Key{C_SUBS, c, NO});
        std::vector<Id> list = direct_subclasses.get(c);  // a copy: class_attr below may add subclasses
        for (Id sub : list) {
            if (!seen.insert(sub).second)
                continue;
            todo.push_back(sub);
            if (scope_at(sub).is_local(name) && scope_of(joined(sub, ".", name)))
                merge(out, class_attr(sub, name, value(T_R, sub)));
        }
    }
    return out.size() <= MAX_SUBCLASS_METHODS ? out : VSet{};
}

Id Solver::bind_attr(Id v, Id receiver, Id cls) {
    const Value val = values[v];
    if (val.tag != T_F)
        return v;
    const Scope *scope = scope_of(val.a);
    if (scope && scope->is_static)
        return v;
    if (scope && scope->is_classmethod)
        return value(T_BM, val.a, value(T_C, cls));
    if (receiver != NO) {
        if (scope && scope->is_property)
            return value(T_PROP, val.a);
        return value(T_BM, val.a, receiver);
    }
    return v;
}

VSet Solver::getattr(const VSet &vals, Id name) {
    VSet out;
    bool bound = false;  // only attributes bound to an instance can be properties
    for (Id v : vals) {
        const Value val = values[v];
        switch (val.tag) {
        case T_M:
            merge(out, module_attr(val.a, name));
            break;
        case T_X:
            add(out, value(T_X, joined(val.a, ".", name)));
            break;
        case T_XR:
            add(out, v);
            break;
        case T_I:
        case T_R: {
            VSet found;
            std::vector<Cell *> cell_list;
            const Mro &walk_of = mro_walk(val.a);  // (stays: only define_class drops memos)
            cell_list.reserve(walk_of.internal.size());
            for (Id k : walk_of.internal)
                cell_list.push_back(&watch(Key{C_A, k, name}));
            for (Cell *cell : cell_list)
                merge(found, cell->unioned);
            VSet from_class = class_attr(val.a, name, v, NO, &cell_list);
            if (!found.empty()) {  // an instance attribute hides an external base's guess
                VSet kept;
                for (Id c : from_class)
                    if (values[c].tag != T_X)
                        kept.push_back(c);
                from_class = std::move(kept);
            } else if (from_class.empty()) {  // duck-typed: only subclasses define it
                from_class = subclass_methods(val.a, name);
            }
            merge(out, found);
            merge(out, from_class);
            bound = true;
            break;
        }
        case T_C:
            merge(out, class_attr(val.a, name, NO));
            break;
        case T_PR:
            merge(out, getattr(param_results(v), name));
            break;
        case T_SUP:
            merge(out, class_attr(val.a, name, value(T_I, val.a), val.a));
            bound = true;
            break;
        case T_K: {
            const Const &c = consts[val.a];
            if (c.kind == ConstKind::Str)
                add(out, value(T_BT, prefix("<**PyStr**>.", name)));
            break;
        }
        case T_O: {
            bool is_dict = kinds.get(val.a) == 1;
            if (is_dict && name == s_update)
                add(out, value(T_UPD, val.a));
            else if (!is_dict && (name == s_append || name == s_insert || name == s_extend))
                add(out, value(T_PUT, val.a, name));
            else
                add(out, value(T_BT, prefix(is_dict ? "<**PyDict**>." : "<**PyList**>.", name)));
            break;
        }
        default:
            break;
        }
    }
    return bound ? resolve_props(out) : out;
}

VSet Solver::resolve_props(const VSet &vals) {
    bool any = false;
    for (Id v : vals)
        if (values[v].tag == T_PROP) {
            any = true;
            break;
        }
    if (!any)
        return vals;
    VSet out;
    for (Id v : vals) {
        if (values[v].tag == T_PROP)
            merge(out, returns(values[v].a));
        else
            add(out, v);
    }
    return out;
}

}  // namespace atlas
