/* expressions.py: targets and expressions -> IR tuples. */

#include "walk.h"

static PyObject *call_expr(W *w, int32_t n);
static PyObject *lambda_expr(W *w, int32_t n);
static PyObject *comprehension(W *w, int32_t n);

static PyObject *target_(W *w, int32_t n) {
    int t = kind(n);
    if (t == K_IDENTIFIER) {
        PyObject *nm = name(w, n);
        if (nm && bind(w, nm) < 0)
            Py_CLEAR(nm);
        return tup(2, ref(S.n), nm);
    }
    if (t == K_ATTRIBUTE) {
        PyObject *obj = expr(w, field(n, F_OBJECT));
        return tup(3, ref(S.a), obj, obj ? name(w, field(n, F_ATTRIBUTE)) : NULL);
    }
    if (t == K_SUBSCRIPT) {
        PyObject *key = NODE(n)->num_named == 2 ? expr(w, named_at(n, 1)) : ref(UNKNOWN);
        PyObject *value = key ? expr(w, field(n, F_VALUE)) : NULL;
        return tup(3, ref(S.s), value, key);
    }
    if (t == K_PATTERN_LIST || t == K_TUPLE_PATTERN || t == K_LIST_PATTERN || t == K_EXPRESSION_LIST ||
        t == K_TUPLE || t == K_LIST) {
        PyObject *items = PyList_New(0);
        EACH_NAMED(c, n)
        if (append(items, target(w, c)) < 0)
            return Py_XDECREF(items), NULL;
        return tup(2, ref(S.t), as_tuple(items));
    }
    if ((t == K_LIST_SPLAT_PATTERN || t == K_LIST_SPLAT) && NODE(n)->num_named)
        return tup(2, ref(S.star), target(w, NODE(n)->first_named));
    if (t == K_PARENTHESIZED_EXPRESSION && NODE(n)->num_named)
        return target(w, NODE(n)->first_named);
    return Py_BuildValue("(s)", "?");
}

PyObject *target(W *w, int32_t n) {
    if (n < 0)
        return none_attribute();
    if (Py_EnterRecursiveCall(" while walking a Python tree"))
        return NULL;
    PyObject *out = target_(w, n);
    Py_LeaveRecursiveCall();
    return out;
}

static PyObject *element(W *w, int32_t n) {
    if (kind(n) == K_LIST_SPLAT && NODE(n)->num_named)
        return tup(2, ref(S.star), expr(w, NODE(n)->first_named));
    return expr(w, n);
}

static PyObject *alloc(W *w, int32_t n) { return PyUnicode_FromFormat("%U:%u", w->module, NODE(n)->start_byte); }

/* A tuple of each named child's expr (or element). */
static PyObject *exprs(W *w, int32_t n, PyObject *(*each)(W *, int32_t)) {
    PyObject *items = PyList_New(0);
    EACH_NAMED(c, n)
    if (append(items, each(w, c)) < 0)
        return Py_XDECREF(items), NULL;
    return as_tuple(items);
}

static PyObject *string_expr(W *w, int32_t n, int t) {
    if (t == K_STRING) {
        int32_t content = -1;
        int plain = 1;
        EACH_NAMED(c, n) {
            if (kind(c) == K_INTERPOLATION) {
                plain = 0;
                break;
            }
            if (kind(c) == K_STRING_CONTENT && content < 0)
                content = c;
        }
        if (plain)
            return tup(2, ref(S.k), content >= 0 ? text(w, content) : ref(S.empty));
    }
    EACH_NAMED(c, n) {
        if (kind(c) != K_INTERPOLATION)
            continue;
        EACH_NAMED(e, c)
        if (emit(w, tup(3, ref(S.e), expr(w, e), long_(w->idx))) < 0)
            return NULL;
    }
    return tup(2, ref(S.k), ref(S.empty));
}

/* `obj[lo:hi]` (value stolen): the bounds before the second ':'. */
static PyObject *slice_expr(W *w, int32_t slice, PyObject *value) {
    PyObject *parts[2] = {NULL, NULL};
    int seen = 0;
    EACH_CHILD(c, slice) {
        if (kind(c) == K_COLON) {
            seen++;
        } else if (seen < 2) {
            PyObject *e = expr(w, c);
            if (!e) {
                Py_XDECREF(parts[0]);
                Py_XDECREF(parts[1]);
                Py_DECREF(value);
                return NULL;
            }
            Py_XSETREF(parts[seen], e);
        }
    }
    return tup(4, ref(S.sl), value, parts[0] ? parts[0] : ref(Py_None), parts[1] ? parts[1] : ref(Py_None));
}

static PyObject *dict_expr(W *w, int32_t n) {
    PyObject *pairs = PyList_New(0);
    EACH_NAMED(c, n) {
        PyObject *pair;
        if (kind(c) == K_PAIR) {
            PyObject *key = expr(w, field(c, F_KEY));
            pair = tup(2, key, key ? expr(w, field(c, F_VALUE)) : NULL);
        } else if (kind(c) == K_DICTIONARY_SPLAT && NODE(c)->num_named) {
            pair = tup(2, ref(Py_None), expr(w, NODE(c)->first_named));
        } else {
            continue;
        }
        if (append(pairs, pair) < 0)
            return Py_XDECREF(pairs), NULL;
    }
    PyObject *items = as_tuple(pairs);
    return tup(3, ref(S.d), items, items ? alloc(w, n) : NULL);
}

static PyObject *expr_(W *w, int32_t n) {
    int t = kind(n);
    int has_named = NODE(n)->num_named > 0;
    switch (t) {
    case K_IDENTIFIER:
        return tup(2, ref(S.n), name(w, n));
    case K_ATTRIBUTE: {
        PyObject *obj = expr(w, field(n, F_OBJECT));
        return tup(3, ref(S.a), obj, obj ? name(w, field(n, F_ATTRIBUTE)) : NULL);
    }
    case K_CALL:
        return call_expr(w, n);
    case K_STRING:
    case K_CONCATENATED_STRING:
        return string_expr(w, n, t);
    case K_INTEGER: {
        PyObject *raw = text(w, n), *value = raw ? PyLong_FromUnicodeObject(raw, 0) : NULL;
        Py_XDECREF(raw);
        if (!value && raw && PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            return ref(UNKNOWN);
        }
        return tup(2, ref(S.k), value);
    }
    case K_FLOAT:
        return tup(2, ref(S.k), PyFloat_FromDouble(0.0));
    case K_TRUE:
    case K_FALSE:
    case K_NONE:
        return tup(2, ref(S.k), ref(t == K_TRUE ? Py_True : t == K_FALSE ? Py_False : Py_None));
    case K_SUBSCRIPT: {
        PyObject *value = expr(w, field(n, F_VALUE));
        if (!value)
            return NULL;
        int32_t sub = NODE(n)->num_named == 2 ? named_at(n, 1) : -1;
        if (sub >= 0 && kind(sub) == K_SLICE)
            return slice_expr(w, sub, value);
        return tup(3, ref(S.s), value, sub >= 0 ? expr(w, sub) : ref(UNKNOWN));
    }
    case K_LIST:
    case K_TUPLE:
    case K_SET:
    case K_EXPRESSION_LIST: {
        PyObject *items = exprs(w, n, element);
        return tup(3, ref(S.l), items, items ? alloc(w, n) : NULL);
    }
    case K_DICTIONARY:
        return dict_expr(w, n);
    case K_PARENTHESIZED_EXPRESSION:
    case K_AWAIT:
    case K_NOT_OPERATOR:
    case K_TYPE:
        if (!has_named)
            break;
        PyObject *inner = expr(w, NODE(n)->first_named);
        if (inner && t == K_NOT_OPERATOR) {
            Py_DECREF(inner);
            return tup(2, ref(S.k), ref(Py_False));
        }
        return inner;
    case K_LAMBDA:
        return lambda_expr(w, n);
    case K_CONDITIONAL_EXPRESSION:
    case K_BOOLEAN_OPERATOR: {
        PyObject *operands = exprs(w, n, expr);
        if (operands && t == K_CONDITIONAL_EXPRESSION && PyTuple_GET_SIZE(operands) == 3) {
            PyObject *branches = tup(2, ref(PyTuple_GET_ITEM(operands, 0)), ref(PyTuple_GET_ITEM(operands, 2)));
            int rc = emit(w, tup(3, ref(S.e), ref(PyTuple_GET_ITEM(operands, 1)), long_(w->idx)));
            Py_DECREF(operands);
            return rc < 0 ? Py_XDECREF(branches), NULL : tup(2, ref(S.u), branches);
        }
        return tup(2, ref(S.u), operands);
    }
    case K_BINARY_OPERATOR:
    case K_COMPARISON_OPERATOR:
    case K_UNARY_OPERATOR: {
        if (t == K_BINARY_OPERATOR) {
            int32_t op = field(n, F_OPERATOR);
            if (op < 0)
                return none_attribute();
            if (kind(op) == K_PLUS) {
                PyObject *left = expr(w, field(n, F_LEFT));
                PyObject *right = left ? expr(w, field(n, F_RIGHT)) : NULL;
                return tup(2, ref(S.u), tup(2, left, right));
            }
        }
        EACH_NAMED(c, n) {
            PyObject *e = expr(w, c);
            if (!e)
                return NULL;
            if (tag_is(e, S.c) || tag_is(e, S.lam)) {
                if (emit(w, tup(3, ref(S.e), e, long_(w->idx))) < 0)
                    return NULL;
            } else {
                Py_DECREF(e);
            }
        }
        return ref(UNKNOWN);
    }
    case K_LIST_COMPREHENSION:
    case K_SET_COMPREHENSION:
    case K_GENERATOR_EXPRESSION:
    case K_DICTIONARY_COMPREHENSION:
        return comprehension(w, n);
    case K_NAMED_EXPRESSION: {
        PyObject *value = expr(w, field(n, F_VALUE));
        PyObject *tgt = value ? target(w, field(n, F_NAME)) : NULL;
        if (emit(w, tup(6, ref(S.assign), tup(1, tgt), value ? ref(value) : NULL, long_(w->idx), ref(Py_False),
                        empty())) < 0)
            return Py_XDECREF(value), NULL;
        return value;
    }
    case K_YIELD:
        return yield_expr(w, n);
    case K_LIST_SPLAT:
    case K_DICTIONARY_SPLAT:
        if (!has_named)
            break;
        return tup(2, ref(S.it), expr(w, NODE(n)->first_named));
    case K_KEYWORD_ARGUMENT:
        return expr(w, field(n, F_VALUE));
    }
    return ref(UNKNOWN);
}

PyObject *expr(W *w, int32_t n) {
    if (n < 0)
        return none_attribute();
    if (Py_EnterRecursiveCall(" while walking a Python tree"))
        return NULL;
    PyObject *out = expr_(w, n);
    Py_LeaveRecursiveCall();
    return out;
}

/* `triton.jit(fn)`, `triton.jit(**options)(fn)`: fn, a name in this scope, is a kernel. */
static int note_jit(W *w, PyObject *fexpr, PyObject *args) {
    PyObject *jit = tag_is(fexpr, S.c) ? PyTuple_GET_ITEM(fexpr, 1) : fexpr;
    if (PyList_GET_SIZE(args) == 0 || !tag_is(PyList_GET_ITEM(args, 0), S.n))
        return 0;
    int is_jit = PyObject_RichCompareBool(jit, JIT_ATTRIBUTE, Py_EQ);
    if (is_jit == 0)
        is_jit = PyObject_RichCompareBool(jit, JIT_NAME, Py_EQ);
    if (is_jit <= 0)
        return is_jit;
    PyObject *fn = PyUnicode_FromFormat("%U.%U", SCOPE(w)->id, PyTuple_GET_ITEM(PyList_GET_ITEM(args, 0), 1));
    int rc = fn ? PySet_Add(w->jit_calls, fn) : -1;
    Py_XDECREF(fn);
    return rc;
}

static PyObject *call_expr(W *w, int32_t n) {
    int32_t func = field(n, F_FUNCTION), arguments = field(n, F_ARGUMENTS);
    PyObject *fexpr = expr(w, func), *args = PyList_New(0), *kwargs = PyList_New(0), *site = NULL;
    if (!fexpr || !args || !kwargs)
        goto fail;
    if (tag_is(fexpr, S.n) && PySet_Add(SCOPE(w)->called_names, PyTuple_GET_ITEM(fexpr, 1)) < 0)
        goto fail;
    if (arguments >= 0 && kind(arguments) == K_GENERATOR_EXPRESSION) {
        if (append(args, expr(w, arguments)) < 0)
            goto fail;
    } else if (arguments >= 0) {
        EACH_NAMED(a, arguments) {
            int t = kind(a), rc;
            if (t == K_KEYWORD_ARGUMENT) {
                PyObject *kw = name(w, field(a, F_NAME));
                rc = append(kwargs, tup(2, kw, kw ? expr(w, field(a, F_VALUE)) : NULL));
            } else if (t == K_LIST_SPLAT && NODE(a)->num_named) {
                rc = append(args, tup(2, ref(S.star), expr(w, NODE(a)->first_named)));
            } else if (t == K_DICTIONARY_SPLAT && NODE(a)->num_named) {
                rc = append(kwargs, tup(2, ref(Py_None), expr(w, NODE(a)->first_named)));
            } else if (t != K_COMMENT) {
                rc = append(args, expr(w, a));
            } else {
                continue;
            }
            if (rc < 0)
                goto fail;
        }
    }
    PyObject *ftext = text(w, func);
    if (ftext && PyUnicode_GET_LENGTH(ftext) >= 120) {
        PyObject *head = PyUnicode_Substring(ftext, 0, 117);
        Py_SETREF(ftext, head ? PyUnicode_FromFormat("%U...", head) : NULL);
        Py_XDECREF(head);
    }
    site = tup(3, long_(line_start(n)), long_(line_end(n)), ftext);
    if (!site || note_jit(w, fexpr, args) < 0)
        goto fail;
    return tup(5, ref(S.c), fexpr, as_tuple(args), as_tuple(kwargs), site);
fail:
    Py_XDECREF(fexpr);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(site);
    return NULL;
}

/* Enters scope `index` for `body` (parameters bound first), then comes back; `run` walks the body. */
int within(W *w, Py_ssize_t index, int32_t body, long idx, int (*run)(W *, int32_t, Py_ssize_t)) {
    Py_ssize_t saved_scope = w->cur;
    long saved_idx = w->idx;
    int saved_strong = w->strong, rc = 0;
    w->cur = index;
    PyObject *params = SCOPE(w)->params;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(params) && rc == 0; i++)
        rc = PySet_Add(SCOPE(w)->local_names, PyTuple_GET_ITEM(PyTuple_GET_ITEM(params, i), 0));
    if (idx >= 0) {
        w->idx = idx;
        w->strong = 1;
    }
    if (rc == 0 && body >= 0)
        rc = run(w, body, index);
    w->cur = saved_scope;
    w->idx = saved_idx;
    w->strong = saved_strong;
    return rc;
}

static int lambda_body(W *w, int32_t body, Py_ssize_t index) {
    return emit(w, tup(2, ref(S.ret), expr(w, body)));
}

static PyObject *lambda_expr(W *w, int32_t n) {
    PyObject *owner = SCOPE(w)->id;
    PyObject *count = PyDict_GetItemWithError(w->lambda_counts, owner);
    if (!count && PyErr_Occurred())
        return NULL;
    long number = (count ? PyLong_AsLong(count) : 0) + 1;
    PyObject *number_obj = long_(number);
    if (!number_obj || PyDict_SetItem(w->lambda_counts, owner, number_obj) < 0)
        return Py_XDECREF(number_obj), NULL;
    Py_DECREF(number_obj);
    PyObject *sid = PyUnicode_FromFormat("%U.<lambda%ld>", owner, number);
    if (!sid)
        return NULL;
    PyUnicode_InternInPlace(&sid);
    int32_t params_node = field(n, F_PARAMETERS);
    PyObject *params = parameters(w, params_node);
    PyObject *params_text = !params ? NULL : params_node < 0 ? ref(S.empty) : text(w, params_node);
    PyObject *signature = params_text ? PyUnicode_FromFormat("lambda %U", params_text) : NULL;
    Py_XDECREF(params_text);
    if (!signature || add_symbol(w, sid, S.function, n, signature, empty(), empty()) < 0)
        goto fail;
    Py_ssize_t index = new_scope(w, ref(sid), ref(S.lambda), ref(owner), line_start(n), line_end(n), params, empty(),
                                 empty(), empty(), empty());
    params = NULL;
    if (index < 0 || within(w, index, field(n, F_BODY), line_start(n), lambda_body) < 0)
        goto fail;
    return tup(2, ref(S.lam), sid);
fail:
    Py_DECREF(sid);
    Py_XDECREF(params);
    return NULL;
}

static PyObject *comprehension(W *w, int32_t n) {
    int saved = w->strong;
    w->strong = 0;
    EACH_NAMED(clause, n) {
        if (kind(clause) == K_FOR_IN_CLAUSE) {
            PyObject *tgt = target(w, field(clause, F_LEFT));
            PyObject *iterable = tgt ? expr(w, field(clause, F_RIGHT)) : NULL;
            if (emit(w, tup(4, ref(S.for_), tgt, iterable, long_(w->idx))) < 0)
                return NULL;
        } else if (kind(clause) == K_IF_CLAUSE) {
            EACH_NAMED(c, clause)
            if (emit(w, tup(3, ref(S.e), expr(w, c), long_(w->idx))) < 0)
                return NULL;
        }
    }
    int32_t body = field(n, F_BODY);
    if (body < 0 && (body = NODE(n)->first_named) < 0)
        return no_item();
    PyObject *out;
    if (kind(body) == K_PAIR) {
        PyObject *key = expr(w, field(body, F_KEY));
        PyObject *value = key ? expr(w, field(body, F_VALUE)) : NULL;
        out = tup(3, ref(S.d), tup(1, tup(2, key, value)), alloc(w, n));
    } else {
        out = tup(3, ref(S.l), tup(1, expr(w, body)), alloc(w, n));
    }
    w->strong = saved;
    return out;
}

