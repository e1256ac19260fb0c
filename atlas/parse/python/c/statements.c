/* statements.py: expression statements, assignments (and the attribute symbols they define), yield, imports.
 */

#include "walk.h"

PyObject *yield_expr(W *w, int32_t n) {
    SCOPE(w)->is_generator = 1;
    if (!NODE(n)->num_named)
        return ref(UNKNOWN);
    PyObject *e = expr(w, NODE(n)->first_named);
    if (!e)
        return NULL;
    /* self.src[start:start + 10].replace(b" ", b"").startswith(b"yieldfrom") */
    char squeezed[10];
    int count = 0;
    for (Py_ssize_t i = NODE(n)->start_byte; i < (Py_ssize_t)NODE(n)->start_byte + 10 && i < w->len; i++)
        if (w->src[i] != ' ')
            squeezed[count++] = w->src[i];
    if (count >= 9 && memcmp(squeezed, "yieldfrom", 9) == 0)
        e = tup(2, ref(S.it), e);
    return emit(w, tup(2, ref(S.y), e)) < 0 ? NULL : ref(UNKNOWN);
}

/* The attribute symbol `sid` (stolen) a target defines, spanning `holder`, unless seen or defined already. */
static int attribute_symbol(W *w, PyObject *sid, int32_t annot, int32_t holder) {
    if (!sid)
        return -1;
    int seen = PySet_Contains(w->seen_attrs, sid);
    int defined = seen == 0 ? PySet_Contains(w->defined, sid) : 0;
    int rc = seen < 0 || defined < 0 ? -1 : 0;
    if (rc == 0 && !seen && !defined && (rc = PySet_Add(w->seen_attrs, sid)) == 0) {
        PyObject *sig;
        if (annot < 0) {
            sig = ref(S.empty);
        } else { /* f"{sid.rsplit('.', 1)[1]}: {self.text(annot)}" */
            Py_ssize_t len = PyUnicode_GET_LENGTH(sid), dot = PyUnicode_FindChar(sid, '.', 0, len, -1);
            PyObject *last = PyUnicode_Substring(sid, dot + 1, len), *annot_text = last ? text(w, annot) : NULL;
            sig = annot_text ? PyUnicode_FromFormat("%U: %U", last, annot_text) : NULL;
            Py_XDECREF(last);
            Py_XDECREF(annot_text);
        }
        rc = add_symbol(w, sid, S.attribute, holder, sig, empty(), empty());
    }
    Py_DECREF(sid);
    return rc;
}

/* Module and class attributes, and `self.x` attributes assigned in methods (spanning `holder`). */
static int attribute_symbols(W *w, int32_t tgt, int32_t annot, int32_t holder) {
    Scope *scope = SCOPE(w);
    int t = kind(tgt);
    if (t == K_IDENTIFIER && (scope->kind == S.module || scope->kind == S.class_)) {
        PyObject *nm = text(w, tgt);
        PyObject *sid = nm ? PyUnicode_FromFormat("%U.%U", scope->id, nm) : NULL;
        Py_XDECREF(nm);
        return attribute_symbol(w, sid, annot, holder);
    }
    if (t == K_ATTRIBUTE && scope->kind == S.function && PyTuple_GET_SIZE(scope->params) > 0) {
        int32_t obj = field(tgt, F_OBJECT);
        if (obj < 0)
            return none_attribute(), -1;
        Scope *parent = scope->parent_index >= 0 ? &w->scopes[scope->parent_index] : NULL;
        if (kind(obj) != K_IDENTIFIER)
            return 0;
        PyObject *obj_text = text(w, obj);
        if (!obj_text)
            return -1;
        int is_self = PyUnicode_Compare(obj_text, PyTuple_GET_ITEM(PyTuple_GET_ITEM(scope->params, 0), 0)) == 0;
        Py_DECREF(obj_text);
        if (!is_self || !parent || parent->kind != S.class_)
            return 0;
        PyObject *attr = text(w, field(tgt, F_ATTRIBUTE));
        PyObject *sid = attr ? PyUnicode_FromFormat("%U.%U", parent->id, attr) : NULL;
        Py_XDECREF(attr);
        return attribute_symbol(w, sid, annot, holder);
    }
    if (t == K_PATTERN_LIST || t == K_TUPLE_PATTERN || t == K_EXPRESSION_LIST) {
        EACH_NAMED(c, tgt)
        if (attribute_symbols(w, c, -1, tgt) < 0)
            return -1;
    }
    return 0;
}

static int assignment(W *w, int32_t n) {
    int32_t annot = -1, value = -1, count = 0; /* a chain `a = b = c` holds `count` assignments, outermost first */
    for (int32_t m = n; m >= 0 && kind(m) == K_ASSIGNMENT; m = value) {
        count++;
        annot = field(m, F_TYPE);
        value = field(m, F_RIGHT);
        if (value < 0 || kind(value) != K_ASSIGNMENT)
            break;
    }
    PyObject *annotations = annot < 0 ? empty() : annotation(w, annot);
    PyObject *value_expr = !annotations ? NULL : value < 0 ? ref(UNKNOWN) : expr(w, value);
    PyObject *targets = value_expr ? PyTuple_New(count) : NULL;
    int32_t holder = n;
    for (int32_t i = 0; targets && i < count; i++, holder = field(holder, F_RIGHT)) {
        PyObject *tgt = target(w, field(holder, F_LEFT));
        if (!tgt)
            Py_CLEAR(targets);
        else
            PyTuple_SET_ITEM(targets, i, tgt);
    }
    int rc = emit(w, tup(6, ref(S.assign), targets, value_expr, long_(w->idx), bool_(w->strong), annotations));
    holder = n;
    for (int32_t i = 0; rc == 0 && i < count; i++, holder = field(holder, F_RIGHT))
        rc = attribute_symbols(w, field(holder, F_LEFT), annot, holder);
    return rc;
}

int expression_statement(W *w, int32_t n) {
    int t = kind(n);
    if (t == K_ASSIGNMENT)
        return assignment(w, n);
    if (t == K_AUGMENTED_ASSIGNMENT) {
        int32_t left = field(n, F_LEFT);
        PyObject *tgt = target(w, left);
        PyObject *l = tgt ? expr(w, left) : NULL;
        PyObject *r = l ? expr(w, field(n, F_RIGHT)) : NULL;
        return emit(w, tup(6, ref(S.assign), tup(1, tgt), tup(2, ref(S.u), tup(2, l, r)), long_(w->idx),
                           ref(Py_False), empty()));
    }
    if (t == K_YIELD) {
        PyObject *out = yield_expr(w, n);
        Py_XDECREF(out);
        return out ? 0 : -1;
    }
    return emit(w, tup(4, ref(S.e), expr(w, n), long_(w->idx), bool_(w->strong)));
}

/* `self.absolute(mod)`: a relative module name made absolute (Python's slice semantics kept, negative ends too). */
static PyObject *absolute(W *w, PyObject *mod) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(mod), level = 0;
    while (level < len && PyUnicode_READ_CHAR(mod, level) == '.')
        level++;
    if (level == 0)
        return ref(mod);
    PyObject *parts = PyUnicode_Split(w->module, S.dot, -1), *out = NULL;
    if (!parts)
        return NULL;
    Py_ssize_t keep = PyList_GET_SIZE(parts) - (w->is_package ? 0 : 1); /* parts or parts[:-1] */
    keep = keep < 0 ? 0 : keep;
    if (level > 1) { /* base[:len(base) - (level - 1)] */
        Py_ssize_t end = keep - (level - 1);
        end = end < 0 ? end + keep : end;
        keep = end < 0 ? 0 : end;
    }
    PyObject *base = PyList_GetSlice(parts, 0, keep), *rest = PyUnicode_Substring(mod, level, len);
    if (base && rest && (PyUnicode_GET_LENGTH(rest) == 0 || PyList_Append(base, rest) == 0))
        out = PyUnicode_Join(S.dot, base);
    Py_DECREF(parts);
    Py_XDECREF(base);
    Py_XDECREF(rest);
    return out;
}

static int import_names(W *w, int32_t n) {
    EACH_NAMED(c, n) {
        PyObject *mod, *alias, *bound;
        if (kind(c) == K_ALIASED_IMPORT) {
            mod = name(w, field(c, F_NAME));
            alias = mod ? name(w, field(c, F_ALIAS)) : NULL;
            bound = alias ? ref(alias) : NULL;
        } else {
            mod = name(w, c);
            alias = ref(Py_None);
            Py_ssize_t dot = mod ? PyUnicode_FindChar(mod, '.', 0, PyUnicode_GET_LENGTH(mod), 1) : -1;
            bound = !mod ? NULL : dot >= 0 ? PyUnicode_Substring(mod, 0, dot) : ref(mod);
        }
        int rc = bound ? bind(w, bound) : -1;
        Py_XDECREF(bound);
        if (rc < 0)
            Py_CLEAR(mod);
        if (emit(w, tup(5, ref(S.imp), mod, alias, long_(w->idx), bool_(w->strong))) < 0)
            return -1;
    }
    return 0;
}

int import_statement(W *w, int32_t n) {
    if (kind(n) == K_IMPORT_STATEMENT)
        return import_names(w, n);
    if (kind(n) == K_FUTURE_IMPORT_STATEMENT)
        return 0;
    int32_t mod_node = field(n, F_MODULE_NAME);
    PyObject *raw = text(w, mod_node);
    PyObject *squeezed = raw ? PyUnicode_Replace(raw, S.space, S.empty, -1) : NULL;
    PyObject *mod = squeezed ? absolute(w, squeezed) : NULL, *names_ = PyList_New(0);
    Py_XDECREF(raw);
    Py_XDECREF(squeezed);
    if (!mod || !names_)
        goto fail;
    PyUnicode_InternInPlace(&mod);
    EACH_NAMED(c, n) {
        PyObject *pair;
        if (c == mod_node)
            continue;
        if (kind(c) == K_WILDCARD_IMPORT) {
            pair = tup(2, ref(S.star), ref(Py_None));
        } else if (kind(c) == K_ALIASED_IMPORT) {
            PyObject *nm = name(w, field(c, F_NAME));
            pair = tup(2, nm, nm ? name(w, field(c, F_ALIAS)) : NULL);
        } else if (kind(c) == K_DOTTED_NAME) {
            pair = tup(2, name(w, c), ref(Py_None));
        } else {
            continue;
        }
        if (append(names_, pair) < 0)
            goto fail;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names_); i++) { /* self.bind(asname or name) */
        PyObject *nm = PyTuple_GET_ITEM(PyList_GET_ITEM(names_, i), 0);
        PyObject *as = PyTuple_GET_ITEM(PyList_GET_ITEM(names_, i), 1);
        if (PyUnicode_Compare(nm, S.star) != 0 && bind(w, as != Py_None && PyObject_IsTrue(as) ? as : nm) < 0)
            goto fail;
    }
    return emit(w, tup(5, ref(S.from), mod, as_tuple(names_), long_(w->idx), bool_(w->strong)));
fail:
    Py_XDECREF(mod);
    Py_XDECREF(names_);
    return -1;
}

