// Expressions (atlas/graph/resolve/values.py): literals and their slots, subscripts, slices and iteration; and
// higher-order calls (atlas/graph/resolve/summaries.py): ('pr', function, parameter) values.
#include <algorithm>
#include <cstring>

#include "solver.h"

namespace atlas {

constexpr int MAX_DEPTH = 2;    // containers nested deeper than this are not copied per call site
constexpr size_t MAX_SLOTS = 8;  // nor containers with more slots than this

VSet Solver::eval(const Expr *e) {
    switch (e->tag) {
    case E_N:
        return lookup(e->s);
    case E_A:
        return getattr(eval(e->x), e->s);
    case E_C:
        return call_expr(e);
    case E_K:
        return one(value(T_K, e->s));
    case E_S:
        return subscript(eval(e->x), e->y);
    case E_L:
        return literal(e);
    case E_D:
        return dict_literal(e);
    case E_LAM:
        return one(value(T_F, e->s));
    case E_U: {
        VSet out;
        for (const Expr *x : e->items->items)
            merge(out, eval(x));
        return out;
    }
    case E_IT:
        return iterate(eval(e->x));
    case E_SL:
        return slice(e);
    default:
        return {};
    }
}

VSet Solver::literal(const Expr *e) {
    Id alloc = e->s;
    kinds.at(alloc) = 0;
    bool star = false;
    const auto &items = e->items->items;
    for (size_t i = 0; i < items.size(); i++) {
        const Expr *item = items[i];
        if (item->tag == E_STAR) {
            star = true;
            write_slot(alloc, text_const(s_star), iterate(eval(item->x)));
        } else {
            VSet vals = eval(item);
            write_slot(alloc, star ? text_const(s_star) : int_const((int64_t)i), vals, ctx.strong);
        }
    }
    return one(value(T_O, alloc));
}

VSet Solver::dict_literal(const Expr *e) {
    Id alloc = e->s;
    kinds.at(alloc) = 1;
    for (const Expr *pair : e->items->items) {
        if (!pair->x) {
            copy_slots(eval(pair->y), alloc);
            continue;
        }
        VSet keys = eval(pair->x);
        Id k = text_const(s_star);
        if (keys.size() == 1 && values[keys[0]].tag == T_K)
            k = values[keys[0]].a;
        VSet vals = eval(pair->y);
        write_slot(alloc, k, vals, ctx.strong && k != text_const(s_star));
    }
    return one(value(T_O, alloc));
}

void Solver::copy_slots(const VSet &vals, Id alloc) {
    for (Id v : vals) {
        if (values[v].tag != T_O)
            continue;
        for (Id key : slots(values[v].a)) {
            VSet got = read(slot(values[v].a, key));
            write_slot(alloc, key, got, ctx.strong && key != text_const(s_star));
        }
    }
}

SmallVec<Id, 4> Solver::slots(Id alloc) {
    depend(Key{C_SLOTS, alloc, NO});
    const std::vector<Id> &keys = slot_keys.view(alloc);  // (copied before anything can grow slot_keys)
    SmallVec<Id, 4> out;
    out.append(keys.data(), keys.data() + keys.size());
    return out;
}

VSet Solver::subscript(const VSet &vals, const Expr *key_expr) {
    VSet out;
    bool have_keys = false;
    VSet keys;
    for (Id v : vals) {
        const Value val = values[v];
        switch (val.tag) {
        case T_O: {
            if (!have_keys) {
                keys = eval(key_expr);
                have_keys = true;
            }
            std::vector<Id> consts_;
            for (Id k : keys)
                if (values[k].tag == T_K)
                    consts_.push_back(values[k].a);
            if (!consts_.empty() && consts_.size() == keys.size()) {
                for (Id c : consts_)
                    merge(out, read(slot(val.a, c)));
                merge(out, read(slot(val.a, text_const(s_star))));
            } else {
                for (Id k : slots(val.a))
                    merge(out, read(slot(val.a, k)));
            }
            break;
        }
        case T_F:
        case T_C:
        case T_X:
        case T_BM:
        case T_XR:
            add(out, v);  // kernel[grid], Generic[T], external[...]
            break;
        case T_I:
        case T_R:
            merge(out, call_value(v, s_getitem, key_expr));
            break;
        case T_PR:
            merge(out, subscript(param_results(v), key_expr));
            break;
        default:
            break;
        }
    }
    return out;
}

// Whether a constant is an int to Python (bools are).
static bool is_int(const Const &c) { return c.kind == ConstKind::Int || c.kind == ConstKind::Bool; }

VSet Solver::slice(const Expr *e) {
    VSet vals = eval(e->x);
    VSet lo = e->y ? eval(e->y) : one(value(T_K, int_const(0)));
    VSet hi = e->z ? eval(e->z) : one(value(T_K, konst(Const{ConstKind::None, 0, NO})));
    VSet out;
    for (Id v : vals) {
        if (values[v].tag != T_O)
            continue;
        const std::string &alloc_text = str[values[v].a];
        bool simple = alloc_text.find('[') == std::string::npos && lo.size() == 1 && hi.size() == 1;
        VSet bounds = lo;
        merge(bounds, hi);
        for (Id x : bounds) {
            const Value &bv = values[x];
            if (bv.tag != T_K) {  // x[1] of a non-constant: Python compares its id, never an int
                simple = simple && false;
                continue;
            }
            const Const &c = consts[bv.a];
            simple = simple && (is_int(c) || c.kind == ConstKind::None);
        }
        if (simple) {
            const Const &a_c = consts[values[lo[0]].a], &b_c = consts[values[hi[0]].a];
            int64_t a = a_c.kind == ConstKind::None ? 0 : a_c.number;  // `or 0`
            bool open_end = b_c.kind == ConstKind::None;
            int64_t b = b_c.number;
            auto text_of = [](const Const &c, int64_t n) {
                if (c.kind == ConstKind::Bool)
                    return std::string(n ? "True" : "False");
                return std::to_string(n);
            };
            std::string lo_text = a_c.kind == ConstKind::None || (a_c.kind == ConstKind::Bool && !a_c.number) ||
                                          (a_c.kind == ConstKind::Int && a_c.number == 0)
                                      ? "0"
                                      : text_of(a_c, a);
            std::string hi_text = open_end ? "None" : text_of(b_c, b);
            Id alloc = str.intern(alloc_text + "[" + lo_text + ":" + hi_text + "]");
            kinds.at(alloc) = 0;
            std::vector<std::pair<int64_t, Id>> ints;  // sorted(k[2] for k in slots(...) if isinstance(k[2], int))
            for (Id k : slots(values[v].a))
                if (is_int(consts[k]))
                    ints.emplace_back(consts[k].number, k);
            std::stable_sort(ints.begin(), ints.end(), [](auto &x, auto &y) { return x.first < y.first; });
            int64_t n = (int64_t)ints.size();
            auto clamp = [n](int64_t i) { return i < 0 ? std::max<int64_t>(0, i + n) : std::min(i, n); };
            int64_t start = clamp(a), stop = open_end ? n : clamp(b);
            for (int64_t j = start; j < stop; j++) {
                VSet got = read(slot(values[v].a, ints[j].second));
                write_slot(alloc, int_const(ints[j].first - a), got);
            }
            VSet rest = read(slot(values[v].a, text_const(s_star)));
            write_slot(alloc, text_const(s_star), rest);
            add(out, value(T_O, alloc));
        } else {
            add(out, v);
        }
    }
    return out;
}

VSet Solver::iterate(const VSet &vals) {
    VSet out;
    for (Id v : vals) {
        const Value val = values[v];
        switch (val.tag) {
        case T_O:
            for (Id k : slots(val.a))
                merge(out, read(slot(val.a, k), false));
            break;
        case T_G:
            merge(out, read(Key{C_Y, val.a, NO}, false));
            break;
        case T_XR:
            add(out, v);
            break;
        case T_PR:
            merge(out, iterate(param_results(v)));
            break;
        case T_I:
        case T_R:
            for (Id it : call_value(v, s_iter, nullptr)) {
                if (values[it].tag == T_I)
                    merge(out, call_value(it, s_next, nullptr));
                else
                    merge(out, iterate(one(it)));
            }
            break;
        default:
            break;
        }
    }
    return out;
}

VSet Solver::call_value(Id receiver, Id method, const Expr *arg_expr) {
    const Expr *&name = method_names[method];
    if (!name) {
        Expr *made = arena.alloc<Expr>();
        made->tag = E_N;
        made->s = method;
        name = made;
    }
    VSet out;
    const Expr *items[1] = {arg_expr};
    for (Id m : class_attr(values[receiver].a, method, receiver)) {
        Args args{Span<const Expr *>{items, 1}, ++num_args};  // `(arg_expr,)`: a new tuple for each callee
        merge(out, invoke(m, arg_expr ? &args : empty_args, empty_args, nullptr, name));
    }
    return out;
}

// -- summaries.py ---------------------------------------------------------------------------------------------------

Id Solver::param_call(Id name) {
    int32_t at = pr_function.get(ctx.scope);
    return at >= 0 && std::binary_search(pr_params[at].begin(), pr_params[at].end(), name)
               ? value(T_PR, ctx.scope, name)
               : NO;
}

VSet Solver::param_results(Id v) {
    if (ctx.scope != values[v].a)
        return {};
    VSet out;
    std::vector<Id> todo{v};
    std::unordered_set<Id> seen{canon[v]};
    while (!todo.empty()) {
        Id p = todo.back();
        todo.pop_back();
        for (Id r : call_results(read(Key{C_V, values[p].a, values[p].b}, false))) {
            if (values[r].tag != T_PR)
                add(out, r);
            else if (seen.insert(canon[r]).second)
                todo.push_back(r);
        }
    }
    return out;
}

VSet Solver::concrete(const VSet &vals) {
    if (pr_function.get(ctx.scope) < 0)
        return vals;
    bool any = false;
    for (Id v : vals)
        any = any || values[v].tag == T_PR;
    if (!any)
        return vals;
    VSet out;
    for (Id v : vals) {
        if (values[v].tag == T_PR)
            merge(out, param_results(v));
        else
            add(out, v);
    }
    return out;
}

VSet Solver::call_results(const VSet &vals) {
    VSet out;
    for (Id f : vals) {
        const Value val = values[f];
        switch (val.tag) {
        case T_F:
        case T_BM: {
            const Scope *scope = scope_of(val.a);
            if (scope)
                merge(out, scope->is_generator ? one(value(T_G, val.a)) : returns(val.a));
            break;
        }
        case T_C:
            add(out, value(T_I, val.a));
            break;
        case T_X: {
            const std::string &name = str[val.a];
            add(out, value(T_XR, str.intern(name.substr(0, name.find('.')))));
            break;
        }
        case T_I:
        case T_R:
            for (Id m : class_attr(val.a, s_call, f))
                if (values[m].tag == T_BM)
                    merge(out, returns(values[m].a));
            break;
        default:
            break;
        }
    }
    return out;
}

VSet Solver::instantiate(const VSet &vals, Id fid, const std::unordered_map<Id, VSet> &bound, Id tag, int depth) {
    depend(Key{C_PR, fid, NO});  // a container of fid's that gains a ('pr', ...) later makes the caller run again
    auto holders_at = pr_holders.find(fid);  // the live set (it may grow below), or none at all
    const std::unordered_set<Id> *holders = holders_at == pr_holders.end() ? nullptr : &holders_at->second;
    VSet out;
    const VSet snapshot = vals;  // the copies below may grow the cells `vals` came from
    for (Id v : snapshot) {
        const Value val = values[v];
        if (val.tag == T_PR && val.a == fid) {
            auto b = bound.find(val.b);
            merge(out, call_results(b == bound.end() ? VSet{} : b->second));
        } else if (val.tag == T_O && depth < MAX_DEPTH && holders && !holders->empty() && holds_pr(val.a, *holders)) {
            Id copy = joined(val.a, "@", tag);
            uint8_t kind = kinds.get(val.a);
            kinds.at(copy) = kind;
            for (Id key : slots(val.a)) {
                VSet got = read(slot(val.a, key), false);
                write_slot(copy, key, instantiate(got, fid, bound, tag, depth + 1));
            }
            add(out, value(T_O, copy));
        } else {
            add(out, v);
        }
    }
    return out;
}

void Solver::note_pr(Id alloc, const VSet &vals) {
    for (Id v : vals) {
        if (values[v].tag != T_PR)
            continue;
        if (pr_holders[values[v].a].insert(alloc).second)
            mark(Key{C_PR, values[v].a, NO});
    }
}

bool Solver::holds_pr(Id alloc, const std::unordered_set<Id> &holders) {
    if (holders.count(alloc))
        return true;
    SmallVec<Id, 4> keys = slots(alloc);
    if (keys.size() > MAX_SLOTS)
        return false;
    for (Id key : keys)
        for (Id v : read(slot(alloc, key), false))
            if (values[v].tag == T_O && holders.count(values[v].a))
                return true;
    return false;
}

}  // namespace atlas
