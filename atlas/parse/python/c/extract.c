/* extract.py: blocks and compound statements, and the module's entry point: extract_packed(source, path, module,
 * is_package, tree) gives the packed facts of one file. */

#include "walk.h"

#define STR(x) #x
#define XSTR(x) STR(x)

int block(W *w, int32_t n) {
    EACH_NAMED(c, n) {
        w->idx = line_start(c);
        w->strong = 1;
        if (statement(w, c) < 0)
            return -1;
    }
    return 0;
}

int nested_block(W *w, int32_t n) {
    int saved = w->strong;
    EACH_NAMED(c, n)
    if (statement(w, c) < 0)
        return -1;
    w->strong = saved;
    return 0;
}

static int with_items(W *w, int32_t n) {
    EACH_NAMED(clause, n) {
        if (kind(clause) != K_WITH_CLAUSE)
            continue;
        EACH_NAMED(item, clause) {
            int32_t value = field(item, F_VALUE);
            if (value < 0 && (value = NODE(item)->first_named) < 0)
                continue;
            int rc;
            if (kind(value) == K_AS_PATTERN) {
                if (!NODE(value)->num_named)
                    return no_item(), -1;
                PyObject *ctx = expr(w, NODE(value)->first_named);
                int32_t alias = field(value, F_ALIAS), tgt = alias;
                if (alias >= 0 && NODE(alias)->num_named)
                    tgt = NODE(alias)->first_named;
                if (ctx && tgt >= 0)
                    rc = emit(w, tup(6, ref(S.assign), tup(1, target(w, tgt)), ctx, long_(w->idx), bool_(w->strong),
                                     empty()));
                else
                    rc = emit(w, tup(3, ref(S.e), ctx, long_(w->idx)));
            } else {
                rc = emit(w, tup(3, ref(S.e), expr(w, value), long_(w->idx)));
            }
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

static int compound(W *w, int32_t n, int t) {
    int conditional = t == K_IF_STATEMENT || t == K_FOR_STATEMENT || t == K_WHILE_STATEMENT ||
                      t == K_TRY_STATEMENT || t == K_MATCH_STATEMENT || t == K_ELSE_CLAUSE || t == K_ELIF_CLAUSE ||
                      t == K_EXCEPT_CLAUSE || t == K_CASE_CLAUSE;
    int saved = w->strong;
    if (conditional)
        w->strong = 0;
    int32_t left = field(n, F_LEFT), right = field(n, F_RIGHT), condition = -1;
    if (t == K_IF_STATEMENT || t == K_WHILE_STATEMENT || t == K_ELIF_CLAUSE)
        condition = field(n, F_CONDITION);
    if (t == K_FOR_STATEMENT) {
        w->strong = saved;
        PyObject *iterable = expr(w, right);
        w->strong = 0;
        PyObject *tgt = iterable ? target(w, left) : NULL;
        if (emit(w, tup(4, ref(S.for_), tgt, tgt ? iterable : (Py_XDECREF(iterable), NULL), long_(w->idx))) < 0)
            return -1;
    } else if (t == K_WITH_STATEMENT && with_items(w, n) < 0) {
        return -1;
    }
    EACH_NAMED(c, n) {
        int ct = kind(c), rc = 0;
        if (ct == K_BLOCK)
            rc = nested_block(w, c);
        else if (ct == K_ELSE_CLAUSE || ct == K_ELIF_CLAUSE || ct == K_EXCEPT_CLAUSE || ct == K_FINALLY_CLAUSE ||
                 ct == K_CASE_CLAUSE || ct == K_EXCEPT_GROUP_CLAUSE)
            rc = compound(w, c, ct);
        else if (ct == K_WITH_CLAUSE || ct == K_AS_PATTERN || c == left || c == right)
            continue;
        else if ((ct == K_IDENTIFIER || ct == K_EXPRESSION_LIST) && t == K_EXCEPT_CLAUSE)
            continue;
        else if (c == condition || t == K_EXCEPT_CLAUSE)
            rc = emit(w, tup(3, ref(S.e), expr(w, c), long_(w->idx)));
        else if (ct == K_MATCH_STATEMENT || NODE(c)->is_statement || ct == K_EXPRESSION_STATEMENT)
            rc = statement(w, c);
        if (rc < 0)
            return -1;
    }
    w->strong = saved;
    return 0;
}

static int statement_(W *w, int32_t n) {
    int t = kind(n);
    switch (t) {
    case K_EXPRESSION_STATEMENT:
        EACH_NAMED(c, n)
        if (expression_statement(w, c) < 0)
            return -1;
        return 0;
    case K_FUNCTION_DEFINITION:
    case K_CLASS_DEFINITION:
    case K_DECORATED_DEFINITION:
        return definition(w, n);
    case K_RETURN_STATEMENT:
        return NODE(n)->num_named ? emit(w, tup(2, ref(S.ret), expr(w, NODE(n)->first_named))) : 0;
    case K_RAISE_STATEMENT:
        return NODE(n)->num_named ? emit(w, tup(3, ref(S.raise), expr(w, NODE(n)->first_named), long_(w->idx))) : 0;
    case K_IMPORT_STATEMENT:
    case K_IMPORT_FROM_STATEMENT:
    case K_FUTURE_IMPORT_STATEMENT:
        return import_statement(w, n);
    case K_GLOBAL_STATEMENT:
        EACH_NAMED(c, n) {
            if (kind(c) == K_IDENTIFIER) {
                PyObject *nm = text(w, c);
                int rc = nm ? PySet_Add(SCOPE(w)->global_names, nm) : -1;
                Py_XDECREF(nm);
                if (rc < 0)
                    return -1;
            }
        }
        return 0;
    case K_IF_STATEMENT:
    case K_FOR_STATEMENT:
    case K_WHILE_STATEMENT:
    case K_TRY_STATEMENT:
    case K_WITH_STATEMENT:
    case K_MATCH_STATEMENT:
    case K_BLOCK:
    case K_ELSE_CLAUSE:
    case K_ELIF_CLAUSE:
    case K_FINALLY_CLAUSE:
    case K_EXCEPT_CLAUSE:
    case K_CASE_CLAUSE:
        return compound(w, n, t);
    case K_ASSERT_STATEMENT:
    case K_DELETE_STATEMENT:
    case K_PRINT_STATEMENT:
    case K_EXEC_STATEMENT:
        EACH_NAMED(c, n)
        if (emit(w, tup(3, ref(S.e), expr(w, c), long_(w->idx))) < 0)
            return -1;
        return 0;
    }
    return 0;
}

int statement(W *w, int32_t n) {
    if (Py_EnterRecursiveCall(" while walking a Python tree"))
        return -1;
    int rc = statement_(w, n);
    Py_LeaveRecursiveCall();
    return rc;
}

/* -- the entry point ---------------------------------------------------------------------------------------- */

/* The scope rows as atlas.parse.python.facts.pack_scopes writes them. */
static PyObject *scope_rows(W *w) {
    PyObject *out = PyTuple_New(w->num_scopes);
    for (Py_ssize_t i = 0; out && i < w->num_scopes; i++) {
        Scope *s = &w->scopes[i];
        PyObject *row = tup(16, ref(s->id), ref(s->kind), ref(s->parent), ref(w->module), long_(s->start),
                            long_(s->end), ref(s->params), ref(s->decorators), ref(s->decorator_names),
                            ref(s->bases), ref(s->returns), bool_(s->is_generator), ref(s->local_names),
                            ref(s->global_names), ref(s->statements), ref(s->called_names));
        if (!row)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, i, row);
    }
    return out;
}

/* The symbol rows, a function jit'd by a call (`triton.jit(fn)`) made a Triton kernel (extract.py: finish). */
static PyObject *symbol_rows(W *w) {
    Py_ssize_t count = PyList_GET_SIZE(w->symbols);
    PyObject *out = PyTuple_New(count);
    for (Py_ssize_t i = 0; out && i < count; i++) {
        PyObject *row = PyList_GET_ITEM(w->symbols, i);
        int jit = PyTuple_GET_ITEM(row, 1) == S.function ? PySet_Contains(w->jit_calls, PyTuple_GET_ITEM(row, 0)) : 0;
        PyObject *made = jit ? PyTuple_New(PyTuple_GET_SIZE(row)) : ref(row);
        if (jit < 0 || !made) {
            Py_XDECREF(made);
            Py_CLEAR(out);
            break;
        }
        for (Py_ssize_t j = 0; jit && j < PyTuple_GET_SIZE(row); j++)
            PyTuple_SET_ITEM(made, j, ref(j == 1 ? S.triton_kernel : PyTuple_GET_ITEM(row, j)));
        PyTuple_SET_ITEM(out, i, made);
    }
    return out;
}

static PyObject *walk(W *w, PyObject *path, int32_t root) {
    long end = line_end(root);
    if (new_scope(w, ref(w->module), ref(S.module), ref(S.empty), 1, end, empty(), empty(), empty(), empty(),
                  empty()) < 0 ||
        append(w->symbols, tup(7, ref(w->module), ref(S.module), long_(1), long_(end), ref(S.empty), empty(),
                               empty())) < 0 ||
        block(w, root) < 0)
        return NULL;
    Py_ssize_t lines = 1;
    for (const char *p = w->src, *stop = w->src + w->len; (p = memchr(p, '\n', (size_t)(stop - p))); p++)
        lines++;
    return tup(6, ref(w->module), ref(path), bool_(w->is_package), PyLong_FromSsize_t(lines), symbol_rows(w),
               scope_rows(w));
}

static PyObject *extract_packed(PyObject *self, PyObject *args) {
    Py_buffer source;
    PyObject *path, *module, *tree_obj, *out = NULL;
    int is_package;
    if (!PyArg_ParseTuple(args, "y*UUpO", &source, &path, &module, &is_package, &tree_obj))
        return NULL;
    W w = {.src = source.buf, .len = source.len, .ascii = 1, .module = ref(module), .is_package = is_package,
           .symbols = PyList_New(0), .seen_attrs = PySet_New(NULL), .defined = PySet_New(NULL),
           .jit_calls = PySet_New(NULL), .lambda_counts = PyDict_New(), .strong = 1};
    PyUnicode_InternInPlace(&w.module);
    for (Py_ssize_t i = 0; i < w.len && w.ascii; i++)
        w.ascii = (unsigned char)w.src[i] < 0x80;
    if (!string_annotation) {
        PyErr_SetString(PyExc_RuntimeError, "atlas.parse.python._walk: configure() was not called");
    } else if (strcmp(Py_TYPE(tree_obj)->tp_name, "tree_sitter.Tree") != 0 ||
               Py_TYPE(tree_obj)->tp_basicsize != (Py_ssize_t)sizeof(Tree)) {
        PyErr_Format(PyExc_TypeError, "expected a tree_sitter.Tree of tree-sitter %s, got %s", XSTR(ATLAS_TS_VERSION),
                     Py_TYPE(tree_obj)->tp_name);
    } else if (w.symbols && w.seen_attrs && w.defined && w.jit_calls && w.lambda_counts) {
        TSTree *tree = ((Tree *)tree_obj)->tree;
        if (use_language(ts_tree_language(tree)) == 0 && flatten(tree) == 0)
            out = walk(&w, path, 0);
    }
    for (Py_ssize_t i = 0; i < w.num_scopes; i++)
        scope_clear(&w.scopes[i]);
    PyMem_Free(w.scopes);
    Py_XDECREF(w.module);
    Py_XDECREF(w.symbols);
    Py_XDECREF(w.seen_attrs);
    Py_XDECREF(w.defined);
    Py_XDECREF(w.jit_calls);
    Py_XDECREF(w.lambda_counts);
    PyBuffer_Release(&source);
    return out;
}

static PyObject *configure(PyObject *self, PyObject *callable) {
    if (!PyCallable_Check(callable)) {
        PyErr_SetString(PyExc_TypeError, "configure() takes string_annotation, a callable");
        return NULL;
    }
    Py_XSETREF(string_annotation, ref(callable));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"extract_packed", extract_packed, METH_VARARGS,
     "extract_packed(source, path, module, is_package, tree) -> the packed facts of one file, as "
     "atlas.parse.python.extract.extract_packed makes them"},
    {"configure", configure, METH_O,
     "configure(string_annotation): the function that reads a quoted annotation (definitions.string_annotation)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_walk", NULL, -1, methods};

PyMODINIT_FUNC PyInit__walk(void) {
#define AS_INIT(id, text) \
    if (!(S.id = PyUnicode_InternFromString(text))) \
        return NULL;
    STRINGS(AS_INIT)
#undef AS_INIT
    UNKNOWN = Py_BuildValue("(s)", "?");
    JIT_ATTRIBUTE = Py_BuildValue("(s(ss)s)", "a", "n", "triton", "jit");
    JIT_NAME = Py_BuildValue("(ss)", "n", "jit");
    if (!UNKNOWN || !JIT_ATTRIBUTE || !JIT_NAME)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m && (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", XSTR(ATLAS_TS_VERSION)) < 0 ||
              PyModule_AddStringConstant(m, "SOURCE_HASH", XSTR(ATLAS_SOURCE_HASH)) < 0))
        Py_CLEAR(m);
    return m;
}
