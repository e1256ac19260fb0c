// The extension atlas.graph.resolve._solve: reads the scope rows (atlas.parse.python.facts.pack_scopes) into the
// solver's IR, solves, and gives back what atlas.graph.resolve.native.NativeSolver returns.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "solver.h"

#ifndef ATLAS_SOURCE_HASH
#error "compile with -DATLAS_SOURCE_HASH=<hash of these sources>"
#endif
#define ATLAS_STR(x) #x
#define ATLAS_XSTR(x) ATLAS_STR(x)

namespace atlas {
namespace {

struct Bad : std::runtime_error {  // the facts are not what the parser makes
    using std::runtime_error::runtime_error;
};

struct PtrHash {
    size_t operator()(PyObject *p) const { return mix((uint64_t)(uintptr_t)p); }
};

struct Reader {
    Solver &s;
    Table<PyObject *, Id, PtrHash> string_ids;     // by object: the parser interns names, so most repeat
    Table<PyObject *, Args *, PtrHash> args_of;   // by object: `memo[0] is args` compares tuples' identity
    std::vector<const Expr *> scratch;

    explicit Reader(Solver &solver) : s(solver) {}

    Id text(PyObject *o) {
        bool made;
        Id &id = string_ids.get(o, &made);
        if (!made)
            return id;
        if (!PyUnicode_Check(o))
            throw Bad("a string was expected in the facts");
        Py_ssize_t n;
        const char *utf8 = PyUnicode_AsUTF8AndSize(o, &n);
        if (!utf8) {
            PyErr_Clear();
            throw Bad("a string of the facts cannot be encoded");
        }
        return id = s.str.intern(std::string_view(utf8, (size_t)n));
    }

    Id text_or_none(PyObject *o) { return o == Py_None ? NO : text(o); }

    Id constant(PyObject *o) {
        if (o == Py_None)
            return s.konst(Const{ConstKind::None, 0, NO});
        if (PyBool_Check(o))
            return s.konst(Const{ConstKind::Bool, o == Py_True, NO});
        if (PyLong_Check(o)) {
            int overflow = 0;
            long long n = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (!overflow)
                return s.konst(Const{ConstKind::Int, (int64_t)n, NO});
            PyObject *repr = PyObject_Str(o);
            if (!repr)
                throw Bad("an int of the facts cannot be read");
            Py_ssize_t size;
            const char *digits = PyUnicode_AsUTF8AndSize(repr, &size);
            Id id = s.konst(Const{ConstKind::BigInt, 0, s.str.intern(std::string_view(digits, (size_t)size))});
            Py_DECREF(repr);
            return id;
        }
        if (PyFloat_Check(o)) {
            double d = PyFloat_AS_DOUBLE(o);
            int64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            return s.konst(Const{ConstKind::Float, bits, NO});
        }
        if (PyUnicode_Check(o))
            return s.text_const(text(o));
        throw Bad("a constant of the facts is not None, a bool, an int, a float or a str");
    }

    static PyObject *item(PyObject *t, Py_ssize_t i) {
        if (!PyTuple_Check(t) || i >= PyTuple_GET_SIZE(t))
            throw Bad("an IR tuple of the facts is shorter than its tag says");
        return PyTuple_GET_ITEM(t, i);
    }

    Expr *node(ETag tag) {
        Expr *e = s.arena.alloc<Expr>();
        e->tag = tag;
        return e;
    }

    // A tuple of expressions (arguments, items, operands, targets); what 1: of (name | None, expr) pairs (kwargs);
    // 2: of (key expr | None, value expr) pairs.
    const Args *tuple_of(PyObject *t, int what) {
        if (!PyTuple_Check(t))
            throw Bad("a tuple was expected in the facts");
        bool made;
        Args *&out = args_of.get(t, &made);
        if (!made)
            return out;
        Args *fresh = s.arena.alloc<Args>();
        fresh->identity = ++s.num_args;
        Py_ssize_t n = PyTuple_GET_SIZE(t);
        const Expr **items = n ? s.arena.alloc<const Expr *>((size_t)n) : nullptr;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyTuple_GET_ITEM(t, i);
            if (what == 0) {
                items[i] = expr(x);
            } else {
                Expr *pair = node(E_PAIR);
                if (what == 1)
                    pair->s = text_or_none(item(x, 0));
                else
                    pair->x = item(x, 0) == Py_None ? nullptr : expr(item(x, 0));
                pair->y = expr(item(x, 1));
                items[i] = pair;
            }
        }
        fresh->items = Span<const Expr *>{items, (uint32_t)n};
        return out = fresh;
    }

    const Expr *expr(PyObject *e) {
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) == 0)
            throw Bad("an IR expression of the facts is not a tagged tuple");
        PyObject *tag_obj = PyTuple_GET_ITEM(e, 0);
        Py_ssize_t len;
        const char *tag = PyUnicode_Check(tag_obj) ? PyUnicode_AsUTF8AndSize(tag_obj, &len) : nullptr;
        if (!tag)
            throw Bad("an IR expression's tag is not a string");
        Expr *out;
        switch (len == 1 ? tag[0] : len == 2 ? tag[0] * 256 + tag[1] : len == 3 ? -1 : -2) {
        case 'n':
            out = node(E_N);
            out->s = text(item(e, 1));
            break;
        case 'a':
            out = node(E_A);
            out->x = expr(item(e, 1));
            out->s = text(item(e, 2));
            break;
        case 'c': {
            out = node(E_C);
            out->x = expr(item(e, 1));
            out->items = tuple_of(item(e, 2), 0);
            out->kwargs = tuple_of(item(e, 3), 1);
            PyObject *site = item(e, 4);
            out->site = Site{(int64_t)integer(item(site, 0)), text(item(site, 2))};
            break;
        }
        case 's':
            out = node(E_S);
            out->x = expr(item(e, 1));
            out->y = expr(item(e, 2));
            break;
        case 's' * 256 + 'l':
            out = node(E_SL);
            out->x = expr(item(e, 1));
            out->y = item(e, 2) == Py_None ? nullptr : expr(item(e, 2));
            out->z = item(e, 3) == Py_None ? nullptr : expr(item(e, 3));
            break;
        case 'k':
            out = node(E_K);
            out->s = constant(item(e, 1));
            break;
        case 'l':
        case 'd':
            out = node(tag[0] == 'd' ? E_D : E_L);
            out->items = tuple_of(item(e, 1), tag[0] == 'd' ? 2 : 0);
            out->s = text(item(e, 2));
            break;
        case 'u':
        case 't':
            out = node(tag[0] == 'u' ? E_U : E_T);
            out->items = tuple_of(item(e, 1), 0);
            break;
        case 'i' * 256 + 't':
        case '*':
            out = node(tag[0] == 'i' ? E_IT : E_STAR);
            out->x = expr(item(e, 1));
            break;
        case '?':
            out = node(E_UNKNOWN);
            break;
        default:
            if (!std::strcmp(tag, "lam")) {
                out = node(E_LAM);
                out->s = text(item(e, 1));
            } else if (!std::strcmp(tag, "type")) {
                out = node(E_TYPE);
                out->x = expr(item(e, 1));
            } else {
                out = node(E_OTHER);
            }
        }
        return out;
    }

    Span<const Expr *> exprs_of(PyObject *t) {
        if (!PyTuple_Check(t))
            throw Bad("a tuple of expressions was expected in the facts");
        Py_ssize_t n = PyTuple_GET_SIZE(t);
        Span<const Expr *> out{n ? s.arena.alloc<const Expr *>((size_t)n) : nullptr, (uint32_t)n};
        for (Py_ssize_t i = 0; i < n; i++)
            out.data[i] = expr(PyTuple_GET_ITEM(t, i));
        return out;
    }

    Span<Id> names(PyObject *set) {  // sorted
        std::vector<Id> ids;
        PyObject *it = PyObject_GetIter(set);
        if (!it)
            throw Bad("a set of names was expected in the facts");
        for (PyObject *name; (name = PyIter_Next(it));) {
            ids.push_back(text(name));
            Py_DECREF(name);
        }
        Py_DECREF(it);
        std::sort(ids.begin(), ids.end());
        return copy_to(s.arena, ids);
    }

    static long long integer(PyObject *o) {
        long long n = PyLong_AsLongLong(o);
        if (n == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            throw Bad("an int was expected in the facts");
        }
        return n;
    }

    void statement(PyObject *t, Stmt &st) {
        PyObject *tag_obj = item(t, 0);
        const char *tag = PyUnicode_Check(tag_obj) ? PyUnicode_AsUTF8(tag_obj) : "";
        if (!std::strcmp(tag, "=")) {
            st.tag = S_ASSIGN;
            st.targets = tuple_of(item(t, 1), 0);
            st.x = expr(item(t, 2));
            st.idx = integer(item(t, 3));
            st.strong = PyObject_IsTrue(item(t, 4)) == 1;
            st.annotations = exprs_of(item(t, 5));
        } else if (!std::strcmp(tag, "e")) {
            st.tag = S_E;
            st.x = expr(item(t, 1));
            st.idx = integer(item(t, 2));
            st.strong = PyTuple_GET_SIZE(t) > 3 && PyObject_IsTrue(item(t, 3)) == 1;
        } else if (!std::strcmp(tag, "ret") || !std::strcmp(tag, "y")) {
            st.tag = tag[0] == 'r' ? S_RET : S_Y;
            st.x = expr(item(t, 1));
        } else if (!std::strcmp(tag, "for")) {
            st.tag = S_FOR;
            st.x = expr(item(t, 1));
            st.y = expr(item(t, 2));
            st.idx = integer(item(t, 3));
        } else if (!std::strcmp(tag, "raise")) {
            st.tag = S_RAISE;
            st.x = expr(item(t, 1));
            st.idx = integer(item(t, 2));
        } else if (!std::strcmp(tag, "imp") || !std::strcmp(tag, "from") || !std::strcmp(tag, "def") ||
                   !std::strcmp(tag, "cls")) {
            st.tag = tag[0] == 'i' ? S_IMP : tag[0] == 'f' ? S_FROM : tag[0] == 'd' ? S_DEF : S_CLS;
            st.a = text(item(t, 1));
            if (st.tag == S_FROM) {
                PyObject *names_ = item(t, 2);
                Py_ssize_t n = PyTuple_Check(names_) ? PyTuple_GET_SIZE(names_) : 0;
                st.names = Span<ImportName>{n ? s.arena.alloc<ImportName>((size_t)n) : nullptr, (uint32_t)n};
                for (Py_ssize_t i = 0; i < n; i++)
                    st.names.data[i] = ImportName{text(item(PyTuple_GET_ITEM(names_, i), 0)),
                                                  text_or_none(item(PyTuple_GET_ITEM(names_, i), 1))};
            } else {
                st.b = text_or_none(item(t, 2));
            }
            st.idx = integer(item(t, 3));
            st.strong = PyObject_IsTrue(item(t, 4)) == 1;
        } else {
            throw Bad("a statement of the facts has an unknown tag");
        }
    }

    void scope(PyObject *row) {
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 16)
            throw Bad("a scope row of the facts does not have 16 fields");
        Scope sc{};
        sc.id = text(item(row, 0));
        const char *kind = PyUnicode_AsUTF8(item(row, 1));
        sc.kind = !kind ? K_FUNCTION : !std::strcmp(kind, "module") ? K_MODULE : !std::strcmp(kind, "class") ? K_CLASS
                  : !std::strcmp(kind, "lambda") ? K_LAMBDA : K_FUNCTION;
        sc.parent = text(item(row, 2));
        sc.module = text(item(row, 3));
        sc.start = integer(item(row, 4));
        PyObject *params = item(row, 6);
        Py_ssize_t num_params = PyTuple_Check(params) ? PyTuple_GET_SIZE(params) : 0;
        sc.params = Span<Param>{num_params ? s.arena.alloc<Param>((size_t)num_params) : nullptr,
                                (uint32_t)num_params};
        for (Py_ssize_t i = 0; i < num_params; i++) {
            PyObject *p = PyTuple_GET_ITEM(params, i);
            const char *pk = PyUnicode_AsUTF8(item(p, 3));
            sc.params.data[i] = Param{text(item(p, 0)), item(p, 1) == Py_None ? nullptr : expr(item(p, 1)),
                                      exprs_of(item(p, 2)), (uint8_t)(!pk ? 0 : std::strlen(pk))};
        }
        sc.decorators = exprs_of(item(row, 7));
        PyObject *deco_names = item(row, 8);
        for (Py_ssize_t i = 0; PyTuple_Check(deco_names) && i < PyTuple_GET_SIZE(deco_names); i++) {
            Py_ssize_t n;
            const char *raw = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(deco_names, i), &n);
            if (!raw)
                throw Bad("a decorator name of the facts is not a string");
            std::string d(raw, (size_t)n);
            sc.is_static |= d == "staticmethod";
            sc.is_classmethod |= d == "classmethod";
            sc.is_property |= d == "property" || d == "cached_property" || d == "functools.cached_property";
            std::string head = d.substr(0, d.find('('));  // d.split("(")[0].rsplit(".", 1)[-1]
            std::string last = head.substr(head.rfind('.') == std::string::npos ? 0 : head.rfind('.') + 1);
            sc.is_kernel_decorated |= last == "jit" || last == "autotune" || last == "heuristics";
        }
        sc.bases = exprs_of(item(row, 9));
        sc.returns = exprs_of(item(row, 10));
        sc.is_generator = PyObject_IsTrue(item(row, 11)) == 1;
        sc.local_names = names(item(row, 12));
        sc.global_names = names(item(row, 13));
        PyObject *statements = item(row, 14);
        if (!PyList_Check(statements))
            throw Bad("a scope's statements are not a list");
        Py_ssize_t n = PyList_GET_SIZE(statements);
        sc.statements = Span<Stmt>{n ? s.arena.alloc<Stmt>((size_t)n) : nullptr, (uint32_t)n};
        for (Py_ssize_t i = 0; i < n; i++)
            statement(PyList_GET_ITEM(statements, i), sc.statements.data[i]);
        s.scope_list.push_back(std::move(sc));
    }
};

PyObject *string(const Solver &s, Id id) {
    const std::string &t = s.str[id];
    PyObject *out = PyUnicode_DecodeUTF8(t.data(), (Py_ssize_t)t.size(), "surrogatepass");
    if (out)
        PyUnicode_InternInPlace(&out);
    return out;
}

template <typename F>
bool each(PyObject *iterable, F &&f) {
    PyObject *it = PyObject_GetIter(iterable);
    if (!it)
        return false;
    for (PyObject *x; (x = PyIter_Next(it));) {
        f(x);
        Py_DECREF(x);
    }
    Py_DECREF(it);
    return !PyErr_Occurred();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The results as Python objects: (edges, sites, bases, rounds), as atlas.graph.resolve.state.Resolution holds them,
// and the seconds each stage took (reading the facts in, solving, and this).
PyObject *results(Solver &s, PyObject *provenances, double read_s, double solve_s, double before) {
    auto start = std::chrono::steady_clock::now();
    PyObject *edges = PyDict_New(), *sites = PyDict_New(), *bases = PyDict_New();
    std::vector<PyObject *> names(s.str.text.size(), nullptr);
    auto name = [&](Id id) {
        if (!names[id])
            names[id] = string(s, id);
        return names[id];
    };
    bool ok = edges && sites && bases;
    for (uint32_t i = 0; ok && i < s.edges.size(); i++) {
        const EdgeKey &key = s.edges.key_at(i);
        PyObject *lines = PyDict_New(), *pair = Py_BuildValue("(OO)", name(key.caller), name(key.callee));
        ok = lines && pair;
        for (const LineProv &lp : s.edges.value_at(i)) {
            PyObject *number = ok ? PyLong_FromLongLong(lp.line) : nullptr;
            ok = number && PyDict_SetItem(lines, number, PyTuple_GET_ITEM(provenances, lp.prov)) == 0;
            Py_XDECREF(number);
        }
        ok = ok && PyDict_SetItem(edges, pair, lines) == 0;
        Py_XDECREF(lines);
        Py_XDECREF(pair);
    }
    for (uint32_t i = 0; ok && i < s.sites.size(); i++) {
        const SiteKey &key = s.sites.key_at(i);
        PyObject *k = Py_BuildValue("(OLO)", name(key.caller), (long long)key.line, name(key.text));
        PyObject *hit = PyLong_FromLong(s.sites.value_at(i));
        ok = k && hit && PyDict_SetItem(sites, k, hit) == 0;
        Py_XDECREF(k);
        Py_XDECREF(hit);
    }
    for (auto &[cid, alternatives] : s.bases) {
        if (!ok)
            break;
        PyObject *written = PyTuple_New((Py_ssize_t)alternatives.size());
        for (size_t i = 0; written && i < alternatives.size(); i++) {
            PyObject *alts = PyTuple_New((Py_ssize_t)alternatives[i].size());
            for (size_t j = 0; alts && j < alternatives[i].size(); j++)
                PyTuple_SET_ITEM(alts, j, Py_NewRef(name(alternatives[i][j])));
            if (!alts) {
                Py_CLEAR(written);
                break;
            }
            PyTuple_SET_ITEM(written, i, alts);
        }
        ok = written && PyDict_SetItem(bases, name(cid), written) == 0;
        Py_XDECREF(written);
    }
    for (PyObject *n : names)
        Py_XDECREF(n);
    PyObject *out = ok ? Py_BuildValue("(OOOi{sdsdsd})", edges, sites, bases, s.rounds, "read", read_s, "solve",
                                       solve_s, "results", before + seconds_since(start))
                       : nullptr;
    Py_XDECREF(edges);
    Py_XDECREF(sites);
    Py_XDECREF(bases);
    return out;
}

PyObject *solve(PyObject *, PyObject *args, PyObject *kwargs) {
    static const char *keywords[] = {"scopes", "modules", "builtins", "pr_functions", "by_name", "instances",
                                     "max_rounds", "cap", "provenances", nullptr};
    PyObject *scope_rows, *modules, *builtins, *pr_functions, *by_name, *instances, *provenances;
    int max_rounds, cap;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOiiO!", const_cast<char **>(keywords), &scope_rows,
                                     &modules, &builtins, &pr_functions, &by_name, &instances, &max_rounds, &cap,
                                     &PyTuple_Type, &provenances))
        return nullptr;
    if (PyTuple_GET_SIZE(provenances) != P_NONE) {
        PyErr_SetString(PyExc_ValueError, "provenances: STATIC, LAUNCH, TYPE_INFERRED, STRING_DISPATCH, DISPATCH");
        return nullptr;
    }
    auto start = std::chrono::steady_clock::now();
    double read_s = 0, solve_s = 0;
    try {
        Solver s;
        s.max_rounds = max_rounds;
        s.cap = (size_t)cap;
        const char *named[] = {"*", "self", "cls", "super", "__init__", "__call__", "__getitem__", "__iter__",
                               "__next__", "forward", "update", "append", "insert", "extend", "", "triton"};
        Id *ids[] = {&s.s_star, &s.s_self, &s.s_cls, &s.s_super, &s.s_init, &s.s_call, &s.s_getitem, &s.s_iter,
                     &s.s_next, &s.s_forward, &s.s_update, &s.s_append, &s.s_insert, &s.s_extend, &s.s_empty,
                     &s.s_triton};
        for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
            *ids[i] = s.str.intern(named[i]);
        s.k_star = NO;
        s.k_star = s.text_const(s.s_star);
        Reader reader(s);
        PyObject *empty = PyTuple_New(0);  // the one () every empty argument tuple is
        s.empty_args = reader.tuple_of(empty, 0);
        Py_DECREF(empty);
        std::vector<Id> module_list;
        bool ok = each(scope_rows, [&](PyObject *row) { reader.scope(row); }) &&
                  each(modules, [&](PyObject *m) { module_list.push_back(reader.text(m)); }) &&
                  each(builtins, [&](PyObject *b) { s.builtins.at(reader.text(b)) = 1; });
        PyObject *fid, *params;
        for (Py_ssize_t pos = 0; ok && PyDict_Next(pr_functions, &pos, &fid, &params);) {
            std::vector<Id> names;
            ok = each(params, [&](PyObject *p) { names.push_back(reader.text(p)); });
            std::sort(names.begin(), names.end());
            s.pr_function.at(reader.text(fid)) = (int32_t)s.pr_params.size();
            s.pr_params.push_back(std::move(names));
        }
        ok = ok && each(by_name, [&](PyObject *rule) {
            ByName r{reader.text(Reader::item(rule, 0)), reader.text(Reader::item(rule, 1)), {}};
            each(Reader::item(rule, 2), [&](PyObject *c) { r.classes.push_back(reader.text(c)); });
            s.by_name.push_back(std::move(r));
        });
        std::vector<std::pair<Id, std::vector<Id>>> instance_rules;
        ok = ok && each(instances, [&](PyObject *rule) {
            std::vector<Id> classes;
            each(Reader::item(rule, 1), [&](PyObject *c) { classes.push_back(reader.text(c)); });
            instance_rules.emplace_back(reader.text(Reader::item(rule, 0)), std::move(classes));
        });
        if (!ok)
            return nullptr;
        for (uint32_t i = 0; i < s.scope_list.size(); i++) {  // `self.scopes[s.id] = s`: the last of an id, first place
            Scope &sc = s.scope_list[i];
            if (!s.scopes.get(sc.id))
                s.scope_order.push_back(sc.id);
            s.scopes.at(sc.id) = &sc;
        }
        read_s = seconds_since(start);
        s.setup(module_list, instance_rules);
        s.solve();
        solve_s = seconds_since(start) - read_s;
        return results(s, provenances, read_s, solve_s, seconds_since(start) - read_s - solve_s);
    } catch (const Bad &exc) {
        PyErr_Format(PyExc_ValueError, "atlas.graph.resolve._solve: %s", exc.what());
    } catch (const std::exception &exc) {
        PyErr_Format(PyExc_RuntimeError, "atlas.graph.resolve._solve failed: %s", exc.what());
    }
    return nullptr;
}

PyMethodDef methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solve, METH_VARARGS | METH_KEYWORDS,
     "solve(scopes, modules, builtins, pr_functions, by_name, instances, max_rounds, cap, provenances) -> "
     "(edges, sites, bases, rounds, seconds per stage)"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_solve", nullptr, -1, methods};

}  // namespace
}  // namespace atlas

PyMODINIT_FUNC PyInit__solve(void) {
    PyObject *m = PyModule_Create(&atlas::module_def);
    if (m && PyModule_AddStringConstant(m, "SOURCE_HASH", ATLAS_XSTR(ATLAS_SOURCE_HASH)) < 0)
        Py_CLEAR(m);
    return m;
}
