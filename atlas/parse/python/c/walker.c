/* The walker's state and helpers (walker.py: WalkerState), and the strings the IR is made of. */

#include <stdarg.h>

#include "walk.h"

Strings S;
PyObject *UNKNOWN, *JIT_ATTRIBUTE, *JIT_NAME, *string_annotation;

/* A tuple of `n` new references, stolen; NULL (every non-NULL one released) when one is NULL. Its arguments are
 * evaluated in no set order: pass only values already made where the walk's order matters. */
PyObject *tup(Py_ssize_t n, ...) {
    PyObject *items[16];
    va_list args;
    va_start(args, n);
    int failed = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        items[i] = va_arg(args, PyObject *);
        failed |= items[i] == NULL;
    }
    va_end(args);
    PyObject *out = failed ? NULL : PyTuple_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (out)
            PyTuple_SET_ITEM(out, i, items[i]);
        else
            Py_XDECREF(items[i]);
    }
    return out;
}


int is_one_of(PyObject *str, const char **options, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (PyUnicode_CompareWithASCIIString(str, options[i]) == 0)
            return 1;
    return 0;
}

void *none_attribute(void) { /* what the Python walker raises reading a field that is not there */
    PyErr_SetString(PyExc_AttributeError, "'NoneType' object has no attribute 'type'");
    return NULL;
}

void *no_item(void) {
    PyErr_SetString(PyExc_IndexError, "list index out of range");
    return NULL;
}

/* A list's items as a tuple, the list released (stolen). */
PyObject *as_tuple(PyObject *list) {
    PyObject *out = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    return out;
}

/* Appends `item` (stolen) to `list`; -1 on error (either NULL). */
int append(PyObject *list, PyObject *item) {
    int rc = item && list ? PyList_Append(list, item) : -1;
    Py_XDECREF(item);
    return rc;
}

void scope_clear(Scope *s) {
    PyObject **fields[] = {&s->id, &s->kind, &s->parent, &s->params, &s->decorators, &s->decorator_names,
                           &s->bases, &s->returns, &s->local_names, &s->global_names, &s->statements,
                           &s->called_names};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        Py_CLEAR(*fields[i]);
}

/* Appends a scope (references stolen); its index, or -1. */
Py_ssize_t new_scope(W *w, PyObject *id, PyObject *kind_, PyObject *parent, long start, long end,
                            PyObject *params, PyObject *decorators, PyObject *decorator_names, PyObject *bases,
                            PyObject *returns) {
    Scope s = {id, kind_, parent, params, decorators, decorator_names, bases, returns, PySet_New(NULL),
               PySet_New(NULL), PyList_New(0), PySet_New(NULL), start, end, 0, w->num_scopes ? w->cur : -1};
    if (!id || !kind_ || !parent || !params || !decorators || !decorator_names || !bases || !returns ||
        !s.local_names || !s.global_names || !s.statements || !s.called_names)
        goto fail;
    if (w->num_scopes == w->cap_scopes) {
        Py_ssize_t cap = w->cap_scopes ? w->cap_scopes * 2 : 16;
        Scope *grown = PyMem_Realloc(w->scopes, sizeof(Scope) * (size_t)cap);
        if (!grown) {
            PyErr_NoMemory();
            goto fail;
        }
        w->scopes = grown;
        w->cap_scopes = cap;
    }
    w->scopes[w->num_scopes] = s;
    return w->num_scopes++;
fail:
    scope_clear(&s);
    return -1;
}

/* `self.text(node)`: the node's source, decoded as UTF-8 (with replacement) when it holds a non-ASCII byte. */
PyObject *text(W *w, int32_t n) {
    if (n < 0)
        return none_attribute();
    Py_ssize_t a = NODE(n)->start_byte, b = NODE(n)->end_byte;
    a = a > w->len ? w->len : a;
    b = b > w->len ? w->len : b < a ? a : b;
    const char *s = w->src + a;
    for (Py_ssize_t i = 0; !w->ascii && i < b - a; i++)
        if ((unsigned char)s[i] >= 0x80)
            return PyUnicode_DecodeUTF8(s, b - a, "replace");
    return PyUnicode_DecodeASCII(s, b - a, NULL);
}

/* `self.name(node)`: its text interned. */
PyObject *name(W *w, int32_t n) {
    if (n < 0)
        return none_attribute();
    Py_ssize_t a = NODE(n)->start_byte, b = NODE(n)->end_byte;
    if (b <= w->len && a <= b) {
        int ascii = w->ascii;
        for (Py_ssize_t i = a; !ascii && i < b; i++)
            if ((unsigned char)w->src[i] >= 0x80)
                goto decode;
        return interned_ascii(w->src + a, b - a);
    }
decode:;
    PyObject *out = text(w, n);
    if (out)
        PyUnicode_InternInPlace(&out);
    return out;
}

int emit(W *w, PyObject *stmt) { return append(SCOPE(w)->statements, stmt); }

int bind(W *w, PyObject *nm) {
    int is_global = PySet_Contains(SCOPE(w)->global_names, nm);
    return is_global < 0 ? -1 : is_global ? 0 : PySet_Add(SCOPE(w)->local_names, nm);
}

/* The symbol row (sid, kind, start, end, signature, decorators, bases); signature, decorators, bases stolen. */
int add_symbol(W *w, PyObject *sid, PyObject *kind_value, int32_t node, PyObject *signature,
                      PyObject *decorators, PyObject *bases) {
    PyObject *row = tup(7, ref(sid), ref(kind_value), long_(line_start(node)), long_(line_end(node)), signature,
                        decorators, bases);
    if (!row)
        return -1;
    if (kind_value != S.attribute) {
        int seen = PySet_Add(w->defined, sid) < 0 ? -1 : PySet_Contains(w->seen_attrs, sid);
        if (seen < 0) {
            Py_DECREF(row);
            return -1;
        }
        if (seen) { /* `name = other` earlier, then `def name`: the definition is the symbol */
            PyObject *kept = PyList_New(0);
            for (Py_ssize_t i = 0; kept && i < PyList_GET_SIZE(w->symbols); i++) {
                PyObject *old = PyList_GET_ITEM(w->symbols, i);
                int same = PyUnicode_Compare(PyTuple_GET_ITEM(old, 0), sid) == 0 &&
                           PyTuple_GET_ITEM(old, 1) == S.attribute;
                if (!same && PyList_Append(kept, old) < 0)
                    Py_CLEAR(kept);
            }
            if (!kept) {
                Py_DECREF(row);
                return -1;
            }
            Py_SETREF(w->symbols, kept);
        }
    }
    return append(w->symbols, row);
}

