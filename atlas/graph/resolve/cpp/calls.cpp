// Calls (atlas/graph/resolve/calls.py): call sites, edges with provenance, argument passing into parameter cells,
// constructors, the builtins that move values and the library calls that do, and calling nn.Module instances.
#include <algorithm>

#include "solver.h"

namespace atlas {

static const Prov RANKED[] = {P_STATIC, P_LAUNCH, P_TYPE_INFERRED, P_STRING_DISPATCH, P_DISPATCH};
static int rank(Prov p) { return (int)(std::find(std::begin(RANKED), std::end(RANKED), p) - std::begin(RANKED)); }

// CONTAINERS: external callables whose result holds the elements of their arguments.
enum { HOW_NONE, HOW_ITERABLE, HOW_ITEMS, HOW_ITERABLES };
static int container_how(const std::string &name) {
    if (name == "torch.nn.ModuleList" || name == "itertools.islice" || name == "collections.deque")
        return HOW_ITERABLE;
    if (name == "torch.nn.Sequential")
        return HOW_ITEMS;
    if (name == "itertools.chain")
        return HOW_ITERABLES;
    return HOW_NONE;
}

static bool is_kernel_wrapper(const std::string &name) {
    return name == "triton.jit" || name == "triton.autotune" || name == "triton.heuristics";
}

VSet Solver::call_expr(const Expr *e) {
    const Expr *fexpr = e->x;
    VSet callees = eval(fexpr);
    SiteKey key{ctx.caller, e->site.line, e->site.text};
    VSet out;
    int hit = 0;
    ArgMemo saved = std::move(arg_memo);
    arg_memo = ArgMemo{};  // the arguments are evaluated once, for the first callee that takes them (eval_args)
    for (Id v : callees) {
        Tag tag = values[v].tag;
        if (tag == T_K || tag == T_O || tag == T_G || tag == T_SUP || tag == T_M)
            continue;
        bool internal = tag == T_F || tag == T_BM || tag == T_C || tag == T_I || tag == T_R || tag == T_PROP;
        hit = std::max(hit, internal ? 2 : 1);
        merge(out, invoke(v, e->items, e->kwargs, &e->site, fexpr));
    }
    arg_memo = std::move(saved);
    bool made;
    int &have = sites.get(key, &made);
    if (made || hit > have)
        have = hit;
    if (!by_name.empty() && (fexpr->tag == E_A || fexpr->tag == E_N)) {
        int32_t rule = by_name_of.get(fexpr->s);
        if (rule >= 0)
            note_named_call((size_t)rule, e->items, e->kwargs, &e->site);
    }
    if (callees.empty()) {
        for (const Expr *a : e->items->items)
            eval(a->tag == E_STAR ? a->x : a);
        for (const Expr *kw : e->kwargs->items)
            eval(kw->y);
    }
    if (fexpr->tag == E_N) {
        Id marker = param_call(fexpr->s);  // a parameter called: each call site gets its argument's results
        if (marker != NO)
            return one(marker);
    }
    return out;
}

void Solver::edge(Id callee, const Site *site, const Expr *fexpr, Prov prov) {
    Lines &lines = edges[EdgeKey{ctx.caller, callee}];
    int64_t line = site ? site->line : 0;
    LineProv *have = std::find_if(lines.begin(), lines.end(), [line](const LineProv &l) { return l.line == line; });
    if (have != lines.end() && have->prov == P_STATIC)
        return;
    if (prov == P_NONE) {
        const Expr *obj = fexpr->tag == E_A ? fexpr->x : nullptr;
        if (fexpr->tag == E_N || (obj && obj->tag == E_N && (obj->s == s_self || obj->s == s_cls)) ||
            (obj && obj->tag == E_C && obj->x->tag == E_N && obj->x->s == s_super)) {
            prov = P_STATIC;
        } else {
            const Scope *scope = fexpr->tag == E_S ? scope_of(callee) : nullptr;
            prov = scope && (kernel_functions.get(callee) || scope->is_kernel_decorated) ? P_LAUNCH
                                                                                            : P_TYPE_INFERRED;
        }
    }
    if (have == lines.end())
        lines.push_back(LineProv{line, prov});
    else if (rank(prov) < rank(have->prov))  // the surest way the site reached the callee, whatever the order
        have->prov = prov;
}

VSet Solver::invoke(Id v, const Args *args, const Args *kwargs, const Site *site, const Expr *fexpr) {
    const Value val = values[v];
    switch (val.tag) {
    case T_F:
        return call_function(val.a, NO, args, kwargs, site, fexpr);
    case T_BM:
        return call_function(val.a, val.b, args, kwargs, site, fexpr);
    case T_C:
        return construct(val.a, args, kwargs, fexpr, site);
    case T_X: {
        edge(val.a, site, fexpr, fexpr->tag == E_N ? P_STATIC : P_TYPE_INFERRED);
        ArgRef evaluated = eval_args(args, kwargs);
        const std::vector<VSet> &vals = evaluated->vals;
        const std::string &name = str[val.a];
        int how = container_how(name);
        if (how != HOW_NONE)  // nn.ModuleList(layers), islice(layers, ...): the elements
            return new_list(val.a, site, elements(vals, how, args));
        if (is_kernel_wrapper(name)) {  // k = triton.jit(fn), triton.jit(**options)(fn)
            VSet kernels;
            if (!vals.empty())
                for (Id f : vals[0])
                    if (values[f].tag == T_F)
                        add(kernels, f);
            for (Id f : kernels)
                kernel_functions.at(values[f].a) = 1;
            if (!kernels.empty())
                return kernels;
            return args->items.empty() ? one(v) : one(value(T_XR, s_triton));
        }
        return one(value(T_XR, str.intern(name.substr(0, name.find('.')))));  // some object of that library
    }
    case T_B:
        return call_builtin(val.a, args, kwargs, site, fexpr);
    case T_XR:  // a method of an object a library returned: resolved outside the tree, no edge
        eval_args(args, kwargs);
        return one(v);
    case T_BT:
        edge(val.a, site, fexpr);
        eval_args(args, kwargs);
        return {};
    case T_UPD:
        for (const Expr *a : args->items)
            if (a->tag != E_STAR)
                copy_slots(eval(a), val.a);
        return {};
    case T_PUT: {  // list.append / insert / extend: the list's elements grow
        edge(prefix("<**PyList**>.", val.b), site, fexpr);
        ArgRef evaluated = eval_args(args, kwargs);
        const std::vector<VSet> &vals = evaluated->vals;
        if (!vals.empty())
            write_slot(val.a, text_const(s_star), val.b == s_extend ? iterate(vals[0]) : vals.back());
        return {};
    }
    case T_I:
    case T_R: {
        VSet out;
        for (Id m : class_attr(val.a, s_call, v)) {
            const Value mv = values[m];
            if (mv.tag == T_X) {  // an external base's __call__ runs a method of the instance: nn.Module -> forward
                const std::string &callable = str[mv.a];
                size_t dot = callable.rfind('.');  // m[1].rpartition(".")[0]
                std::string owner = callable.substr(0, dot == std::string::npos ? 0 : dot);
                if (owner == "torch.nn.Module" || owner == "torch.nn.modules.module.Module")
                    for (Id f : class_attr(val.a, s_forward, v))
                        if (values[f].tag == T_BM)
                            merge(out, call_function(values[f].a, values[f].b, args, kwargs, site, fexpr,
                                                     P_TYPE_INFERRED));
            }
            merge(out, invoke(m, args, kwargs, site, fexpr));
        }
        return out;
    }
    case T_PROP:
        return invoke(value(T_BM, val.a, NO), args, kwargs, site, fexpr);
    case T_PR: {
        VSet out;
        for (Id c : param_results(v))
            merge(out, invoke(c, args, kwargs, site, fexpr));
        return out;
    }
    default:
        return {};
    }
}

Id Solver::site_alloc(const std::string &name, const Site *site, const char *suffix) {
    return str.intern(name + ":" + str[ctx.caller] + ":" + std::to_string(site ? site->line : 0) + suffix);
}

VSet Solver::new_list(Id name, const Site *site, const VSet &elems) {
    Id alloc = site_alloc(str[name], site);
    kinds.at(alloc) = 0;
    write_slot(alloc, text_const(s_star), elems);
    return one(value(T_O, alloc));
}

VSet Solver::elements(const std::vector<VSet> &vals, int how, const Args *args) {
    if (how == HOW_ITERABLE)
        return vals.empty() ? VSet{} : iterate(vals[0]);
    VSet out;
    for (size_t i = 0; i < args->items.size() && i < vals.size(); i++)
        merge(out, how == HOW_ITERABLES || args->items[i]->tag == E_STAR ? iterate(vals[i]) : vals[i]);
    return out;
}

// `values` less its constants.
static VSet without_constants(const Solver &s, VSet vals) {
    Id *kept = std::remove_if(vals.begin(), vals.end(), [&s](Id v) { return s.values[v].tag == T_K; });
    vals.resize_down((uint32_t)(kept - vals.begin()));
    return vals;
}

ArgRef Solver::eval_args(const Args *args, const Args *kwargs) {
    if (arg_memo.set && arg_memo.args == args->identity && arg_memo.kwargs == kwargs->identity &&
        arg_memo.ctx == ctx.serial)
        return arg_memo.result;
    auto made = std::make_shared<ArgVals>();
    for (const Expr *a : args->items)
        made->vals.push_back(concrete(eval(a->tag == E_STAR ? a->x : a)));
    for (const Expr *kw : kwargs->items)
        made->kvals.emplace_back(kw->s, concrete(eval(kw->y)));
    for (auto &val : made->vals)  // constants matter for PyCG's dict and list cases; in real code they only bloat cells
        val = without_constants(*this, std::move(val));
    for (auto &kv : made->kvals)
        kv.second = without_constants(*this, std::move(kv.second));
    arg_memo = ArgMemo{true, args->identity, kwargs->identity, ctx.serial, made};
    return made;
}

VSet Solver::call_function(Id fid, Id receiver, const Args *args, const Args *kwargs, const Site *site,
                           const Expr *fexpr, Prov prov) {
    const Scope *scope = scope_of(fid);
    if (!scope)
        return {};
    if (receiver != NO && values[receiver].tag == T_R) {  // an instance a dispatch rule names: a run-time choice
        prov = P_DISPATCH;
        receiver = value(T_I, values[receiver].a);
    }
    edge(fid, site, fexpr, prov);
    ArgRef evaluated = eval_args(args, kwargs);
    const std::vector<VSet> &vals = evaluated->vals;
    const auto &params = scope->params;
    size_t pos = 0;
    Ctx saved = ctx;
    ctx = new_ctx(ctx.caller, -1, ctx.caller, false);
    bool summarized = pr_function.get(fid) >= 0;  // (only instantiate reads `bound`)
    std::unordered_map<Id, VSet> bound;
    if (receiver != NO && !params.empty()) {
        write(Key{C_V, fid, params[0].name}, one(receiver));
        pos = 1;
    }
    for (size_t i = 0; i < args->items.size() && i < vals.size(); i++) {
        if (args->items[i]->tag == E_STAR || pos >= params.size())
            break;
        const Param &p = params[pos];
        if (p.kind != 0)
            break;
        if (vals[i].size() <= cap) {
            write(Key{C_V, fid, p.name}, vals[i]);
            if (summarized)
                bound[p.name] = vals[i];
        }
        pos++;
    }
    for (auto &[k, val] : evaluated->kvals) {
        if (k == NO)
            continue;
        for (const Param &p : params)
            if (p.name == k && p.kind == 0 && val.size() <= cap) {
                write(Key{C_V, fid, k}, val);
                if (summarized)
                    bound[k] = val;
                break;
            }
    }
    ctx = saved;
    if (scope->is_generator)
        return one(value(T_G, fid));
    if (summarized)
        return instantiate(returns(fid), fid, bound,
                           str.intern(str[ctx.caller] + ":" + std::to_string(site ? site->line : 0)));
    return returns(fid);
}

VSet Solver::returns(Id fid) {
    return read(Key{C_RET, fid, NO}, false);  // (the context it reads in matters not to a read of the whole cell)
}

VSet Solver::construct(Id cls, const Args *args, const Args *kwargs, const Expr *fexpr, const Site *site) {
    Id inst = value(T_I, cls);
    for (Id m : class_attr(cls, s_init, inst)) {
        if (values[m].tag == T_BM)
            call_function(values[m].a, inst, args, kwargs, site, fexpr);
        else if (values[m].tag == T_X)
            edge(values[m].a, site, fexpr);
    }
    if (site && class_attr(cls, s_init, inst).empty())
        edge(cls, site, fexpr);  // no __init__ of its own (a dataclass, say): the edge names the class
    return one(inst);
}

VSet Solver::call_builtin(Id name, const Args *args, const Args *kwargs, const Site *site, const Expr *fexpr) {
    edge(prefix("<builtin>.", name), site, fexpr);
    const std::string &n = str[name];
    if (n == "super") {
        Id cls = class_of.get(ctx.scope);
        eval_args(args, kwargs);
        return cls != NO && !str[cls].empty() ? one(value(T_SUP, cls)) : VSet{};
    }
    ArgRef evaluated = eval_args(args, kwargs);
    const std::vector<VSet> &vals = evaluated->vals;
    if (n == "map" || n == "filter") {
        VSet out, elems;
        for (auto &val : vals)
            merge(elems, iterate(val));
        for (auto &val : vals)
            for (Id f : val) {
                Tag tag = values[f].tag;
                if (tag == T_F || tag == T_BM || tag == T_C)
                    merge(out, invoke(f, empty_args, empty_args, site, fexpr));
            }
        Id alloc = site_alloc(n, site);
        kinds.at(alloc) = 0;
        write_slot(alloc, text_const(s_star), out);
        return one(value(T_O, alloc));
    }
    if ((n == "iter" || n == "reversed" || n == "sorted" || n == "list" || n == "tuple" || n == "set" ||
         n == "frozenset") && !vals.empty()) {
        Id alloc = site_alloc(n, site);
        kinds.at(alloc) = 0;
        write_slot(alloc, text_const(s_star), iterate(vals[0]));
        return one(value(T_O, alloc));
    }
    if (n == "next" && !vals.empty())
        return iterate(vals[0]);
    if ((n == "enumerate" || n == "zip") && !vals.empty()) {  // rows (index, element) / (element of each argument)
        Id row = site_alloc(n, site, ":row");
        kinds.at(row) = 0;
        std::vector<VSet> columns = n == "enumerate" ? std::vector<VSet>{VSet{}, vals[0]} : vals;
        for (size_t i = 0; i < columns.size(); i++)
            write_slot(row, int_const((int64_t)i), iterate(columns[i]));
        return new_list(name, site, one(value(T_O, row)));
    }
    if (n == "getattr" && vals.size() >= 2) {
        VSet out;
        for (Id k : vals[1])
            if (values[k].tag == T_K && consts[values[k].a].kind == ConstKind::Str)
                merge(out, getattr(vals[0], consts[values[k].a].text));
        return out;
    }
    return {};
}

}  // namespace atlas
