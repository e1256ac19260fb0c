/* definitions.py: def and class statements, parameters, and the types annotations name. */

#include "walk.h"

static const char *TRITON_DECORATORS[] = {"triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune",
                                          "heuristics"};
static const char *ANNOT_WRAPPERS[] = {"Optional", "Union", "Annotated", "ClassVar", "Final"};
static const char *CLASS_WRAPPERS[] = {"Type", "type"};

/* a + b for tuples, both stolen. */
static PyObject *concat(PyObject *a, PyObject *b) {
    PyObject *out = a && b ? PySequence_Concat(a, b) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    return out;
}

static PyObject *annotation_(W *w, int32_t n) {
    int t = kind(n);
    if (t == K_TYPE)
        return NODE(n)->num_named ? annotation(w, NODE(n)->first_named) : empty();
    if (t == K_IDENTIFIER || t == K_ATTRIBUTE)
        return tup(1, expr(w, n));
    if (t == K_BINARY_OPERATOR) {
        PyObject *left = annotation(w, field(n, F_LEFT));
        return concat(left, left ? annotation(w, field(n, F_RIGHT)) : NULL);
    }
    if (t == K_SUBSCRIPT || t == K_GENERIC_TYPE) {
        int32_t head_node = field(n, F_VALUE);
        if (head_node < 0 && (head_node = NODE(n)->first_named) < 0)
            return no_item();
        PyObject *head_text = text(w, head_node);
        if (!head_text)
            return NULL;
        Py_ssize_t len = PyUnicode_GET_LENGTH(head_text), dot = PyUnicode_FindChar(head_text, '.', 0, len, -1);
        PyObject *head = PyUnicode_Substring(head_text, dot + 1, len);
        Py_DECREF(head_text);
        if (!head)
            return NULL;
        int is_class = is_one_of(head, CLASS_WRAPPERS, 2), is_wrapper = is_class || is_one_of(head, ANNOT_WRAPPERS, 5);
        Py_DECREF(head);
        if (!is_wrapper)
            return empty();
        PyObject *out = empty();
        for (int32_t c = NODE(n)->first_named >= 0 ? NODE(NODE(n)->first_named)->next_named : -1; out && c >= 0;
             c = NODE(c)->next_named)
            out = concat(out, annotation(w, c));
        if (!out || !is_class)
            return out;
        PyObject *wrapped = PyList_New(0);
        for (Py_ssize_t i = 0; wrapped && i < PyTuple_GET_SIZE(out); i++)
            if (append(wrapped, tup(2, ref(S.type), ref(PyTuple_GET_ITEM(out, i)))) < 0)
                Py_CLEAR(wrapped);
        Py_DECREF(out);
        return as_tuple(wrapped);
    }
    if (t == K_TYPE_PARAMETER || t == K_UNION_TYPE) {
        PyObject *found = empty();
        EACH_NAMED(c, n)
        if (!(found = concat(found, annotation(w, c))))
            return NULL;
        return found;
    }
    if (t == K_STRING) {
        PyObject *raw = text(w, n);
        PyObject *stripped = raw ? PyObject_CallMethodOneArg(raw, S.strip, S.quotes) : NULL;
        PyObject *out = stripped ? PyObject_CallOneArg(string_annotation, stripped) : NULL;
        Py_XDECREF(raw);
        Py_XDECREF(stripped);
        return out;
    }
    return empty();
}

PyObject *annotation(W *w, int32_t n) {
    if (n < 0)
        return empty();
    if (Py_EnterRecursiveCall(" while walking a Python tree"))
        return NULL;
    PyObject *out = annotation_(w, n);
    Py_LeaveRecursiveCall();
    return out;
}

/* One parameter's (name, default expr | None, annotation exprs, kind "" | "*" | "**"); Py_None to skip it. */
static PyObject *parameter(W *w, int32_t p) {
    int t = kind(p);
    if (t == K_IDENTIFIER)
        return tup(4, name(w, p), ref(Py_None), empty(), ref(S.empty));
    if (t == K_TYPED_PARAMETER || t == K_TYPED_DEFAULT_PARAMETER || t == K_DEFAULT_PARAMETER) {
        int32_t name_node = field(p, F_NAME);
        if (name_node < 0 && (name_node = NODE(p)->first_named) < 0)
            return no_item();
        PyObject *splat = S.empty;
        if (kind(name_node) == K_LIST_SPLAT_PATTERN || kind(name_node) == K_DICTIONARY_SPLAT_PATTERN) {
            splat = kind(name_node) == K_LIST_SPLAT_PATTERN ? S.star : S.starstar;
            if ((name_node = NODE(name_node)->first_named) < 0)
                return no_item();
        }
        int32_t annot = field(p, F_TYPE), deflt = field(p, F_VALUE);
        PyObject *nm = name(w, name_node);
        PyObject *default_expr = !nm ? NULL : deflt < 0 ? ref(Py_None) : expr(w, deflt);
        PyObject *annots = !default_expr ? NULL : annot < 0 ? empty() : annotation(w, annot);
        return tup(4, nm, default_expr, annots, ref(splat));
    }
    if ((t == K_LIST_SPLAT_PATTERN || t == K_DICTIONARY_SPLAT_PATTERN) && NODE(p)->num_named)
        return tup(4, name(w, NODE(p)->first_named), ref(Py_None), empty(),
                   ref(t == K_LIST_SPLAT_PATTERN ? S.star : S.starstar));
    return ref(Py_None);
}

PyObject *parameters(W *w, int32_t n) {
    if (n < 0)
        return empty();
    PyObject *out = PyList_New(0);
    EACH_NAMED(p, n) {
        PyObject *param = parameter(w, p);
        if (param == Py_None) {
            Py_DECREF(param);
            continue;
        }
        if (append(out, param) < 0)
            return Py_XDECREF(out), NULL;
    }
    return as_tuple(out);
}

static int is_triton_decorator(PyObject *deco_name) { /* n.split("(")[0] in TRITON_DECORATORS */
    Py_ssize_t len = PyUnicode_GET_LENGTH(deco_name), paren = PyUnicode_FindChar(deco_name, '(', 0, len, 1);
    PyObject *head = PyUnicode_Substring(deco_name, 0, paren >= 0 ? paren : len);
    int found = head ? is_one_of(head, TRITON_DECORATORS, 6) : -1;
    Py_XDECREF(head);
    return found;
}

int body_block(W *w, int32_t body, Py_ssize_t index) { return block(w, body); }

/* The part of `definition` after the decorators, for a class. */
int class_definition(W *w, int32_t n, int32_t outer, PyObject *sid, PyObject *nm, PyObject *deco_exprs,
                            PyObject *deco_names) {
    int32_t supers = field(n, F_SUPERCLASSES);
    PyObject *base_exprs = PyList_New(0), *base_names = PyList_New(0);
    if (supers >= 0) {
        EACH_NAMED(c, supers)
        if (kind(c) != K_KEYWORD_ARGUMENT && append(base_exprs, expr(w, c)) < 0)
            goto fail;
        EACH_NAMED(c, supers)
        if (kind(c) == K_KEYWORD_ARGUMENT && emit(w, tup(3, ref(S.e), expr(w, field(c, F_VALUE)), long_(w->idx))) < 0)
            goto fail;
        EACH_NAMED(c, supers)
        if (kind(c) != K_KEYWORD_ARGUMENT && append(base_names, text(w, c)) < 0)
            goto fail;
    }
    PyObject *supers_text = supers < 0 ? ref(S.empty) : text(w, supers);
    PyObject *signature = supers_text ? PyUnicode_FromFormat("class %U%U", nm, supers_text) : NULL;
    Py_XDECREF(supers_text);
    if (add_symbol(w, sid, S.class_, outer, signature, ref(deco_names), as_tuple(base_names)) < 0) {
        base_names = NULL;
        goto fail;
    }
    Py_ssize_t index = new_scope(w, ref(sid), ref(S.class_), ref(SCOPE(w)->id), line_start(n), line_end(n), empty(),
                                 ref(deco_exprs), ref(deco_names), as_tuple(base_exprs), empty());
    if (index < 0 || emit(w, tup(5, ref(S.cls), ref(sid), ref(nm), long_(w->idx), bool_(w->strong))) < 0)
        return -1;
    return within(w, index, field(n, F_BODY), -1, body_block);
fail:
    Py_XDECREF(base_exprs);
    Py_XDECREF(base_names);
    return -1;
}

/* The part of `definition` after the decorators, for a function. */
int function_definition(W *w, int32_t n, int32_t outer, PyObject *sid, PyObject *nm, PyObject *deco_exprs,
                               PyObject *deco_names) {
    int32_t params_node = field(n, F_PARAMETERS), ret = field(n, F_RETURN_TYPE);
    PyObject *params = parameters(w, params_node);
    if (!params)
        return -1;
    int triton = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(deco_names) && triton == 0; i++)
        triton = is_triton_decorator(PyTuple_GET_ITEM(deco_names, i));
    if (triton < 0)
        return Py_DECREF(params), -1;
    PyObject *kind_value = triton ? S.triton_kernel : SCOPE(w)->kind == S.class_ ? S.method : S.function;
    Py_ssize_t start = NODE(n)->start_byte;
    const char *def = start + 5 <= w->len && memcmp(w->src + start, "async", 5) == 0 ? "async def " : "def ";
    PyObject *params_text = text(w, params_node);
    PyObject *ret_text = !params_text ? NULL : ret < 0 ? ref(S.empty) : text(w, ret);
    PyObject *signature = !ret_text ? NULL
                          : ret < 0 ? PyUnicode_FromFormat("%s%U%U", def, nm, params_text)
                                    : PyUnicode_FromFormat("%s%U%U -> %U", def, nm, params_text, ret_text);
    Py_XDECREF(params_text);
    Py_XDECREF(ret_text);
    if (add_symbol(w, sid, kind_value, outer, signature, ref(deco_names), empty()) < 0)
        return Py_DECREF(params), -1;
    PyObject *returns = ret < 0 ? empty() : annotation(w, ret);
    Py_ssize_t index = new_scope(w, ref(sid), ref(S.function), ref(SCOPE(w)->id), line_start(n), line_end(n), params,
                                 ref(deco_exprs), ref(deco_names), empty(), returns);
    if (index < 0 || emit(w, tup(5, ref(S.def), ref(sid), ref(nm), long_(w->idx), bool_(w->strong))) < 0)
        return -1;
    return within(w, index, field(n, F_BODY), -1, body_block);
}

int definition(W *w, int32_t n) {
    int32_t outer = n, decorated = -1; /* the span covers the decorators too */
    if (kind(n) == K_DECORATED_DEFINITION) {
        decorated = n;
        if ((n = field(n, F_DEFINITION)) < 0)
            return none_attribute(), -1;
    }
    int rc = -1;
    PyObject *nm = name(w, field(n, F_NAME));
    PyObject *sid = nm ? PyUnicode_FromFormat("%U.%U", SCOPE(w)->id, nm) : NULL;
    PyObject *deco_exprs = PyList_New(0), *deco_names = PyList_New(0);
    if (!sid || !deco_exprs || !deco_names)
        goto done;
    PyUnicode_InternInPlace(&sid);
    if (decorated >= 0) {
        EACH_NAMED(d, decorated)
        if (kind(d) == K_DECORATOR && NODE(d)->num_named && append(deco_exprs, expr(w, NODE(d)->first_named)) < 0)
            goto done;
        EACH_NAMED(d, decorated)
        if (kind(d) == K_DECORATOR && NODE(d)->num_named && append(deco_names, text(w, NODE(d)->first_named)) < 0)
            goto done;
    }
    deco_exprs = as_tuple(deco_exprs);
    deco_names = as_tuple(deco_names);
    if (!deco_exprs || !deco_names || bind(w, nm) < 0)
        goto done;
    rc = (kind(n) == K_CLASS_DEFINITION ? class_definition : function_definition)(w, n, outer, sid, nm, deco_exprs,
                                                                                 deco_names);
done:
    Py_XDECREF(nm);
    Py_XDECREF(sid);
    Py_XDECREF(deco_exprs);
    Py_XDECREF(deco_names);
    return rc;
}

