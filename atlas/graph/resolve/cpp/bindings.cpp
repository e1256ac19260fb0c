// Bindings (atlas/graph/resolve/bindings.py): assignment to names, attributes, slots and tuples; def and class
// statements. And by-name dispatch (atlas/graph/resolve/dispatch.py).
#include <algorithm>
#include <map>
#include <set>

#include "solver.h"

namespace atlas {

void Solver::assign_expr(const Expr *target, const Expr *value) {
    if (target->tag == E_T && value->tag == E_L) {
        const auto &items = value->items->items;
        const auto &targets = target->items->items;
        bool starred_item = std::any_of(items.begin(), items.end(), [](const Expr *i) { return i->tag == E_STAR; });
        if (!starred_item) {
            std::vector<size_t> stars;
            for (size_t i = 0; i < targets.size(); i++)
                if (targets[i]->tag == E_STAR)
                    stars.push_back(i);
            if (stars.empty() && items.size() == targets.size()) {
                for (size_t i = 0; i < targets.size(); i++)
                    assign_expr(targets[i], items[i]);
                return;
            }
            if (stars.size() == 1 && items.size() + 1 >= targets.size()) {
                size_t s = stars[0], after = targets.size() - s - 1;
                for (size_t i = 0; i < s && i < items.size(); i++)
                    assign_expr(targets[i], items[i]);
                for (size_t i = 0; i < after; i++)
                    assign_expr(targets[s + 1 + i], items[items.size() - after + i]);
                const Expr *&middle = middles[value];  // ("l", items[s:len(items) - after], f"{value[2]}*")
                if (!middle) {
                    Args *held = arena.alloc<Args>();
                    held->items = Span<const Expr *>{items.data + s, (uint32_t)(items.size() - after - s)};
                    held->identity = ++num_args;
                    Expr *made = arena.alloc<Expr>();
                    made->tag = E_L;
                    made->s = str.intern(str[value->s] + "*");
                    made->items = held;
                    middle = made;
                }
                assign(targets[s]->x, eval(middle));
                return;
            }
        }
    }
    assign(target, eval(value));
}

void Solver::assign(const Expr *target, const VSet &vals, int strong_arg) {
    bool strong = strong_arg < 0 ? ctx.strong : strong_arg != 0;
    switch (target->tag) {
    case E_N: {
        const Scope &scope = scope_at(ctx.scope);
        Id owner = scope.is_global(target->s) ? scope.module : scope.id;
        write(Key{C_V, owner, target->s}, owner == scope.id ? vals : concrete(vals), strong);
        break;
    }
    case E_A: {
        VSet concrete_vals = concrete(vals);  // an attribute outlives the call: no per-call-site ('pr', ...) there
        for (Id obj : eval(target->x)) {
            const Value o = values[obj];
            if (o.tag == T_I || o.tag == T_C || o.tag == T_R)
                write(Key{C_A, o.a, target->s}, concrete_vals);
            else if (o.tag == T_M && scope_of(o.a))
                write(Key{C_V, o.a, target->s}, concrete_vals);
        }
        break;
    }
    case E_S: {
        std::vector<Id> objs;
        for (Id o : eval(target->x))
            if (values[o].tag == T_O)
                objs.push_back(values[o].a);
        if (objs.empty())
            return;
        VSet keys = eval(target->y);
        std::vector<Id> consts_;
        for (Id k : keys)
            if (values[k].tag == T_K)
                consts_.push_back(values[k].a);
        for (Id obj : objs) {
            if (!consts_.empty() && consts_.size() == keys.size()) {
                for (Id c : consts_)
                    write_slot(obj, c, vals, strong && objs.size() == 1 && consts_.size() == 1);
            } else {
                write_slot(obj, text_const(s_star), vals);
            }
        }
        break;
    }
    case E_T: {
        std::vector<Id> positional;
        for (Id v : vals)
            if (values[v].tag == T_O)
                positional.push_back(values[v].a);
        VSet rest = iterate(vals);
        const auto &subs = target->items->items;
        for (size_t i = 0; i < subs.size(); i++) {
            if (subs[i]->tag == E_STAR) {
                assign(subs[i]->x, vals, 0);
                continue;
            }
            VSet got;
            for (Id o : positional)
                merge(got, read(slot(o, int_const((int64_t)i)), false));
            assign(subs[i], got.empty() ? rest : got, 0);
        }
        break;
    }
    case E_STAR:
        assign(target->x, vals, 0);
        break;
    default:
        break;
    }
}

VSet Solver::annotation(const Span<const Expr *> &exprs) {
    VSet out;
    for (const Expr *e : exprs) {
        bool is_class = e->tag == E_TYPE;
        for (Id v : eval(is_class ? e->x : e)) {
            if (values[v].tag == T_C)
                add(out, is_class ? v : value(T_I, values[v].a));
            else if (values[v].tag == T_X)
                add(out, v);
        }
    }
    return out;
}

void Solver::define(const Scope &parent, Id fid, Id name) {
    const Scope &scope = scope_at(fid);
    Ctx outer = ctx;
    ctx = new_ctx(fid, -2, outer.caller, false);
    for (size_t i = 0; i < scope.params.size(); i++) {
        const Param &p = scope.params[i];
        ctx = outer;
        VSet vals = p.deflt ? eval(p.deflt) : VSet{};
        if (!p.annotation.empty())
            merge(vals, annotation(p.annotation));
        if (i == 0 && parent.kind == K_CLASS && !scope.is_static)
            add(vals, scope.is_classmethod ? value(T_C, parent.id) : value(T_I, parent.id));
        ctx = new_ctx(fid, -2, outer.caller, false);
        write(Key{C_V, fid, p.name}, vals);
    }
    if (!scope.returns.empty()) {
        ctx = outer;
        VSet vals = annotation(scope.returns);
        ctx = new_ctx(fid, -3, outer.caller, false);
        write(Key{C_RET, fid, NO}, vals);
    }
    ctx = outer;
    Site at{scope.start, s_empty};
    for (size_t i = scope.decorators.size(); i-- > 0;) {
        const Expr *deco = scope.decorators[i];
        for (Id d : eval(deco)) {
            const Value dv = values[d];
            if ((dv.tag == T_F || dv.tag == T_BM || dv.tag == T_C) && dv.a != fid)
                edge(dv.a, &at, deco);  // the name keeps the function (real code: not passed through)
            else if (dv.tag == T_X)
                edge(dv.a, &at, deco);
        }
    }
    assign_name(name, one(value(T_F, fid)));
}

VSet Solver::invoke_with_values(Id callee, const VSet &vals, const Expr *fexpr) {
    Id fid = values[callee].a;
    const Scope *scope = scope_of(fid);
    if (values[callee].tag == T_C) {
        Site at{scope_at(ctx.scope).start, s_empty};
        return construct(fid, empty_args, empty_args, fexpr, &at);
    }
    if (!scope)
        return {};
    edge(fid, nullptr, fexpr);
    size_t first = values[callee].tag == T_BM ? 1 : 0;
    if (scope->params.size() > first) {
        Ctx saved = ctx;
        ctx = new_ctx(ctx.caller, -1, ctx.caller, false);
        write(Key{C_V, fid, scope->params[first].name}, vals);
        ctx = saved;
    }
    return scope->is_generator ? one(value(T_G, fid)) : returns(fid);
}

void Solver::define_class(const Scope &parent, Id cid, Id name) {
    const Scope &scope = scope_at(cid);
    std::vector<std::vector<Id>> found;
    for (const Expr *b : scope.bases) {
        std::vector<std::string> entries;
        for (Id v : eval(b)) {
            const Value bv = values[v];
            if (bv.tag == T_C)
                entries.push_back(str[bv.a]);
            else if (bv.tag == T_X)
                entries.push_back("x:" + str[bv.a]);
            else if (bv.tag == T_B)
                entries.push_back("b:" + str[bv.a]);
        }
        std::sort(entries.begin(), entries.end());
        std::vector<Id> ids;
        for (auto &e : entries)
            ids.push_back(str.intern(e));
        found.push_back(std::move(ids));
    }
    auto have = bases.find(cid);
    if (have == bases.end() || have->second != found) {
        bases[cid] = found;
        std::vector<Id> users;
        users.swap(mro_users.at(cid));
        for (Id user : users)
            mro_memo.at(user) = nullptr;
        changed = true;
        mark(Key{C_B, cid, NO});
        std::set<Id> internal;
        for (auto &alts : found)
            for (Id b : alts) {
                const std::string &text = str[b];
                if (text.rfind("x:", 0) != 0 && text.rfind("b:", 0) != 0)
                    internal.insert(b);
            }
        for (Id base : internal) {
            std::vector<Id> &subs = direct_subclasses.at(base);
            if (std::find(subs.begin(), subs.end(), cid) == subs.end()) {
                subs.push_back(cid);
                mark(Key{C_SUBS, base, NO});
            }
        }
    }
    for (const Expr *deco : scope.decorators)
        for (Id d : eval(deco)) {
            const Value dv = values[d];
            if ((dv.tag == T_F || dv.tag == T_BM) && dv.a != cid)
                invoke_with_values(d, one(value(T_C, cid)), deco);
            else if (dv.tag == T_X) {
                Site at{scope.start, s_empty};
                edge(dv.a, &at, deco);
            }
        }
    assign_name(name, one(value(T_C, cid)));
}

// -- dispatch.py ----------------------------------------------------------------------------------------------------

static bool is_identifier(const std::string &text) {
    PyObject *s = PyUnicode_DecodeUTF8(text.data(), (Py_ssize_t)text.size(), "replace");
    int out = s ? PyUnicode_IsIdentifier(s) : 0;
    Py_XDECREF(s);
    PyErr_Clear();
    return out == 1;
}

void Solver::note_named_call(size_t rule, const Args *args, const Args *kwargs, const Site *site) {
    const Expr *named = nullptr;
    if (!args->items.empty() && args->items[0]->tag == E_K) {
        named = args->items[0];
    } else {
        for (const Expr *kw : kwargs->items)
            if (kw->s != NO && kw->s == by_name[rule].argument) {
                named = kw->y;
                break;
            }
    }
    if (!named || named->tag != E_K || consts[named->s].kind != ConstKind::Str)
        return;
    Id method = consts[named->s].text;
    if (is_identifier(str[method]))
        named_calls.insert(NamedCall{ctx.caller, site->line, method, rule});
}

void Solver::dispatch_by_name() {
    std::map<std::string, Id> ordered_bases;  // sorted(self.bases)
    for (auto &[cls, _] : bases)
        ordered_bases.emplace(str[cls], cls);
    std::unordered_map<Id, std::vector<Id>> subclasses;
    for (auto &[_, cls] : ordered_bases) {
        std::vector<Id> line = mro(cls);
        for (size_t i = 1; i < line.size(); i++)
            subclasses[line[i]].push_back(cls);
    }
    std::vector<NamedCall> calls(named_calls.begin(), named_calls.end());
    std::stable_sort(calls.begin(), calls.end(), [this](const NamedCall &x, const NamedCall &y) {
        if (x.caller != y.caller)
            return str[x.caller] < str[y.caller];
        if (x.line != y.line)
            return x.line < y.line;
        return str[x.method] < str[y.method];
    });
    for (const NamedCall &call : calls) {
        for (Id cls : by_name[call.rule].classes) {
            std::set<std::string> targets;
            if (scope_of(cls))
                for (Id m : class_attr(cls, call.method, value(T_I, cls)))
                    if (values[m].tag == T_BM)
                        targets.insert(str[values[m].a]);
            auto subs = subclasses.find(cls);
            if (subs != subclasses.end())
                for (Id sub : subs->second) {
                    Id target = joined(sub, ".", call.method);
                    if (scope_at(sub).is_local(call.method) && scope_of(target))
                        targets.insert(str[target]);
                }
            for (const std::string &fid : targets) {
                Lines &lines = edges[EdgeKey{call.caller, str.intern(fid)}];
                if (std::none_of(lines.begin(), lines.end(), [&](const LineProv &l) { return l.line == call.line; }))
                    lines.push_back(LineProv{call.line, P_STRING_DISPATCH});
            }
        }
    }
}

}  // namespace atlas
