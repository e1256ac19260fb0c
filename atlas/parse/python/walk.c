/* The Python extractor's walk in C: the same packed facts as the Python walker (atlas.parse.python.extract), made
 * from the same tree-sitter tree, without a Python object per node. The tree is first copied into a flat array of
 * nodes in one cursor pass (kind, field, span, child links), then walked. Each walking function mirrors the method of
 * the same name in walker.py, expressions.py, statements.py, definitions.py or extract.py, in the same order of
 * evaluation, so that both give equal facts: tests/parse/test_native_walk.py checks them on whole pinned trees.
 * A change to one is a change to both.
 *
 * The tree comes from py-tree-sitter (its Tree object holds the TSTree*); scripts/compile.py builds this file with
 * the tree-sitter runtime and py-tree-sitter's object layouts from the sdist of the very version installed. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <string.h>

#define LookaheadIterator PyLookaheadIterator /* (a name both headers use) */
#include "types.h" /* py-tree-sitter's objects (tree_sitter/binding/types.h): Tree */
#undef LookaheadIterator
/* the runtime's own structures (tree_sitter/core/lib/src): the tree is read from its subtrees */
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

#if !defined(ATLAS_TS_VERSION) || !defined(ATLAS_SOURCE_HASH)
#error "compile with -DATLAS_TS_VERSION=<tree-sitter version of these sources> -DATLAS_SOURCE_HASH=<hash>"
#endif
#define STR(x) #x
#define XSTR(x) STR(x)

/* -- the grammar: node kinds the walker tests (by name: every symbol of that name), and fields ------------------- */

#define KINDS(X) \
    X(EXPRESSION_STATEMENT, "expression_statement") X(FUNCTION_DEFINITION, "function_definition") \
    X(CLASS_DEFINITION, "class_definition") X(DECORATED_DEFINITION, "decorated_definition") \
    X(RETURN_STATEMENT, "return_statement") X(IMPORT_STATEMENT, "import_statement") \
    X(IMPORT_FROM_STATEMENT, "import_from_statement") X(FUTURE_IMPORT_STATEMENT, "future_import_statement") \
    X(RAISE_STATEMENT, "raise_statement") X(GLOBAL_STATEMENT, "global_statement") \
    X(NONLOCAL_STATEMENT, "nonlocal_statement") X(IF_STATEMENT, "if_statement") X(FOR_STATEMENT, "for_statement") \
    X(WHILE_STATEMENT, "while_statement") X(TRY_STATEMENT, "try_statement") X(WITH_STATEMENT, "with_statement") \
    X(MATCH_STATEMENT, "match_statement") X(BLOCK, "block") X(ELSE_CLAUSE, "else_clause") \
    X(ELIF_CLAUSE, "elif_clause") X(FINALLY_CLAUSE, "finally_clause") X(EXCEPT_CLAUSE, "except_clause") \
    X(CASE_CLAUSE, "case_clause") X(EXCEPT_GROUP_CLAUSE, "except_group_clause") \
    X(ASSERT_STATEMENT, "assert_statement") X(DELETE_STATEMENT, "delete_statement") \
    X(PRINT_STATEMENT, "print_statement") X(EXEC_STATEMENT, "exec_statement") X(WITH_CLAUSE, "with_clause") \
    X(AS_PATTERN, "as_pattern") X(IDENTIFIER, "identifier") X(EXPRESSION_LIST, "expression_list") \
    X(ASSIGNMENT, "assignment") X(AUGMENTED_ASSIGNMENT, "augmented_assignment") X(YIELD, "yield") \
    X(ATTRIBUTE, "attribute") X(SUBSCRIPT, "subscript") X(PATTERN_LIST, "pattern_list") \
    X(TUPLE_PATTERN, "tuple_pattern") X(LIST_PATTERN, "list_pattern") X(TUPLE, "tuple") X(LIST, "list") \
    X(LIST_SPLAT_PATTERN, "list_splat_pattern") X(LIST_SPLAT, "list_splat") \
    X(PARENTHESIZED_EXPRESSION, "parenthesized_expression") X(CALL, "call") X(STRING, "string") \
    X(CONCATENATED_STRING, "concatenated_string") X(INTERPOLATION, "interpolation") \
    X(STRING_CONTENT, "string_content") X(INTEGER, "integer") X(FLOAT, "float") X(TRUE, "true") \
    X(FALSE, "false") X(NONE, "none") X(SLICE, "slice") X(COLON, ":") X(SET, "set") X(DICTIONARY, "dictionary") \
    X(PAIR, "pair") X(DICTIONARY_SPLAT, "dictionary_splat") X(AWAIT, "await") X(NOT_OPERATOR, "not_operator") \
    X(TYPE, "type") X(LAMBDA, "lambda") X(CONDITIONAL_EXPRESSION, "conditional_expression") \
    X(BOOLEAN_OPERATOR, "boolean_operator") X(BINARY_OPERATOR, "binary_operator") X(PLUS, "+") \
    X(COMPARISON_OPERATOR, "comparison_operator") X(UNARY_OPERATOR, "unary_operator") \
    X(LIST_COMPREHENSION, "list_comprehension") X(SET_COMPREHENSION, "set_comprehension") \
    X(GENERATOR_EXPRESSION, "generator_expression") X(DICTIONARY_COMPREHENSION, "dictionary_comprehension") \
    X(NAMED_EXPRESSION, "named_expression") X(KEYWORD_ARGUMENT, "keyword_argument") X(COMMENT, "comment") \
    X(FOR_IN_CLAUSE, "for_in_clause") X(IF_CLAUSE, "if_clause") X(DECORATOR, "decorator") \
    X(TYPED_PARAMETER, "typed_parameter") X(TYPED_DEFAULT_PARAMETER, "typed_default_parameter") \
    X(DEFAULT_PARAMETER, "default_parameter") X(DICTIONARY_SPLAT_PATTERN, "dictionary_splat_pattern") \
    X(GENERIC_TYPE, "generic_type") X(TYPE_PARAMETER, "type_parameter") X(UNION_TYPE, "union_type") \
    X(ALIASED_IMPORT, "aliased_import") X(WILDCARD_IMPORT, "wildcard_import") X(DOTTED_NAME, "dotted_name")

#define FIELDS(X) \
    X(ALIAS, "alias") X(ARGUMENTS, "arguments") X(ATTRIBUTE, "attribute") X(BODY, "body") \
    X(DEFINITION, "definition") X(FUNCTION, "function") X(KEY, "key") X(LEFT, "left") \
    X(MODULE_NAME, "module_name") X(NAME, "name") X(OBJECT, "object") X(PARAMETERS, "parameters") \
    X(RETURN_TYPE, "return_type") X(RIGHT, "right") X(SUPERCLASSES, "superclasses") X(TYPE, "type") \
    X(VALUE, "value") X(CONDITION, "condition") X(OPERATOR, "operator")

#define AS_ENUM(id, text) K_##id,
#define AS_TEXT(id, text) text,
enum { K_OTHER, KINDS(AS_ENUM) K_COUNT };
static const char *KIND_NAMES[K_COUNT] = {"", KINDS(AS_TEXT)};
#undef AS_ENUM
#define AS_ENUM(id, text) F_##id,
enum { FIELDS(AS_ENUM) F_COUNT };
static const char *FIELD_NAMES[F_COUNT] = {FIELDS(AS_TEXT)};
#undef AS_ENUM
#undef AS_TEXT

static struct {
    const TSLanguage *language;
    uint32_t num_symbols;
    uint8_t *kinds;        /* symbol -> K_* */
    uint8_t *is_statement; /* symbol -> its name ends with "_statement" */
    TSFieldId fields[F_COUNT];
} grammar;

static int use_language(const TSLanguage *language) {
    if (grammar.language == language)
        return 0;
    uint32_t n = ts_language_symbol_count(language);
    uint8_t *kinds = PyMem_Calloc(n, 1), *is_statement = PyMem_Calloc(n, 1);
    if (!kinds || !is_statement) {
        PyMem_Free(kinds);
        PyMem_Free(is_statement);
        PyErr_NoMemory();
        return -1;
    }
    for (uint32_t s = 0; s < n; s++) {
        const char *name = ts_language_symbol_name(language, (TSSymbol)s);
        size_t len = name ? strlen(name) : 0;
        for (int k = 1; name && k < K_COUNT; k++)
            if (strcmp(name, KIND_NAMES[k]) == 0)
                kinds[s] = (uint8_t)k;
        is_statement[s] = len >= 10 && strcmp(name + len - 10, "_statement") == 0;
    }
    for (int f = 0; f < F_COUNT; f++)
        grammar.fields[f] = ts_language_field_id_for_name(language, FIELD_NAMES[f], (uint32_t)strlen(FIELD_NAMES[f]));
    PyMem_Free(grammar.kinds);
    PyMem_Free(grammar.is_statement);
    grammar.kinds = kinds;
    grammar.is_statement = is_statement;
    grammar.num_symbols = n;
    grammar.language = language;
    return 0;
}

/* -- the flat tree: one entry per visible node, in document order; -1 is "no node" (None) -------------------- */

typedef struct {
    uint32_t start_byte, end_byte, start_row, end_row;
    int32_t first, next;             /* first child, next sibling: every child, named or not */
    int32_t first_named, next_named; /* the same over named children */
    int32_t last, last_named;        /* while flattening */
    uint32_t num_named;
    TSFieldId field; /* the field of its parent it fills, 0 for none */
    uint8_t kind, is_named, is_statement;
} FlatNode;

typedef struct {
    FlatNode *v;
    int32_t n, cap;
} Flat;

static Flat flat; /* reused from file to file */

static int32_t add_node(int32_t parent, TSSymbol symbol, bool named, Length start, Length size, TSFieldId field) {
    if (flat.n == flat.cap) {
        int32_t cap = flat.cap ? flat.cap * 2 : 4096;
        FlatNode *grown = PyMem_Realloc(flat.v, sizeof(FlatNode) * (size_t)cap);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        flat.v = grown;
        flat.cap = cap;
    }
    Length end = length_add(start, size);
    int32_t i = flat.n++;
    FlatNode *x = &flat.v[i];
    x->start_byte = start.bytes;
    x->end_byte = end.bytes;
    x->start_row = start.extent.row;
    x->end_row = end.extent.row;
    x->first = x->next = x->first_named = x->next_named = x->last = x->last_named = -1;
    x->num_named = 0;
    x->field = field;
    x->kind = symbol < grammar.num_symbols ? grammar.kinds[symbol] : K_OTHER;
    x->is_statement = symbol < grammar.num_symbols && grammar.is_statement[symbol];
    x->is_named = named;
    if (parent >= 0) {
        FlatNode *p = &flat.v[parent];
        if (p->last >= 0)
            flat.v[p->last].next = i;
        else
            p->first = i;
        p->last = i;
        if (x->is_named) {
            if (p->last_named >= 0)
                flat.v[p->last_named].next_named = i;
            else
                p->first_named = i;
            p->last_named = i;
            p->num_named++;
        }
    }
    return i;
}

/* The field a child at `structural` index of a node of production `production` fills (not inherited), or 0. */
static TSFieldId field_of(const TSLanguage *language, uint32_t production, uint32_t structural) {
    const TSFieldMapEntry *map, *map_end;
    ts_language_field_map(language, production, &map, &map_end);
    for (; map && map < map_end; map++)
        if (!map->inherited && map->child_index == structural)
            return map->field_id;
    return 0;
}

/* The visible nodes among the children of `parent` (at `position`), as children of flat node `owner`: what a
 * TSTreeCursor visits, read from the subtrees directly. A hidden child with visible descendants is descended into,
 * its own children then belonging to `owner`; `outer` is the field such hidden ancestors fill (the cursor gives a
 * node the innermost field along its hidden ancestors, none through an extra one). */
static int add_children(const TSLanguage *language, Subtree parent, Length position, int32_t owner, TSFieldId outer,
                        int depth) {
    uint32_t count = ts_subtree_child_count(parent);
    if (!count)
        return 0;
    if (depth > 10000) {
        PyErr_SetString(PyExc_RecursionError, "tree too deep to walk");
        return -1;
    }
    uint32_t production = ts_subtree_production_id(parent);
    const TSSymbol *aliases = ts_language_alias_sequence(language, production);
    const Subtree *children = ts_subtree_children(parent);
    uint32_t structural = 0;
    for (uint32_t i = 0; i < count; i++) {
        Subtree child = children[i];
        if (i > 0)
            position = length_add(position, ts_subtree_padding(child));
        bool extra = ts_subtree_extra(child), visible = ts_subtree_visible(child);
        TSSymbol alias = 0;
        TSFieldId field = 0;
        if (!extra) {
            if (aliases && aliases[structural]) {
                alias = aliases[structural];
                visible = true;
            }
            field = field_of(language, production, structural);
            if (!field)
                field = outer;
            structural++;
        }
        if (visible) {
            bool named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(child);
            int32_t at = add_node(owner, alias ? alias : ts_subtree_symbol(child), named, position,
                                  ts_subtree_size(child), field);
            if (at < 0 || add_children(language, child, position, at, 0, depth + 1) < 0)
                return -1;
        } else if (ts_subtree_visible_child_count(child) > 0) {
            if (add_children(language, child, position, owner, field, depth + 1) < 0)
                return -1;
        }
        position = length_add(position, ts_subtree_size(child));
    }
    return 0;
}

/* The tree, depth first: node 0 is the root. */
static int flatten(const TSTree *tree) {
    flat.n = 0;
    Length start = ts_subtree_padding(tree->root);
    int32_t root = add_node(-1, ts_subtree_symbol(tree->root), ts_subtree_named(tree->root), start,
                            ts_subtree_size(tree->root), 0);
    return root < 0 ? -1 : add_children(tree->language, tree->root, start, root, 0, 0);
}

#define NODE(i) (&flat.v[i])
#define EACH_NAMED(c, n) for (int32_t c = NODE(n)->first_named; c >= 0; c = NODE(c)->next_named)
#define EACH_CHILD(c, n) for (int32_t c = NODE(n)->first; c >= 0; c = NODE(c)->next)

static inline int kind(int32_t n) { return NODE(n)->kind; }
static inline long line_start(int32_t n) { return (long)NODE(n)->start_row + 1; }
static inline long line_end(int32_t n) { return (long)NODE(n)->end_row + 1; }

/* `node.child_by_field_id(f)`: its first child filling that field. */
static int32_t field(int32_t n, int f) {
    TSFieldId id = grammar.fields[f];
    EACH_CHILD(c, n)
    if (NODE(c)->field == id)
        return c;
    return -1;
}

/* `node.named_children[i]`, -1 past the end. */
static int32_t named_at(int32_t n, uint32_t i) {
    int32_t c = NODE(n)->first_named;
    while (c >= 0 && i--)
        c = NODE(c)->next_named;
    return c;
}

/* -- interned strings: IR tags, scope and symbol kinds; names read from sources --------------------------------- */

#define STRINGS(X) \
    X(n, "n") X(a, "a") X(c, "c") X(s, "s") X(sl, "sl") X(k, "k") X(l, "l") X(d, "d") X(lam, "lam") X(u, "u") \
    X(it, "it") X(t, "t") X(star, "*") X(starstar, "**") X(assign, "=") X(e, "e") X(ret, "ret") X(y, "y") \
    X(for_, "for") X(raise, "raise") X(imp, "imp") X(from, "from") X(def, "def") X(cls, "cls") X(type, "type") \
    X(empty, "") X(module, "module") X(class_, "class") X(function, "function") X(lambda, "lambda") \
    X(method, "method") X(attribute, "attribute") X(triton_kernel, "triton_kernel") X(dot, ".") X(space, " ") \
    X(quotes, "\"'") X(strip, "strip")

static struct {
#define AS_FIELD(id, text) PyObject *id;
    STRINGS(AS_FIELD)
#undef AS_FIELD
} S;

static PyObject *UNKNOWN;           /* ("?",) */
static PyObject *JIT_ATTRIBUTE;     /* ("a", ("n", "triton"), "jit") */
static PyObject *JIT_NAME;          /* ("n", "jit") */
static PyObject *string_annotation; /* atlas.parse.python.definitions.string_annotation, set by configure() */

static const char *TRITON_DECORATORS[] = {"triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune",
                                          "heuristics"};
static const char *ANNOT_WRAPPERS[] = {"Optional", "Union", "Annotated", "ClassVar", "Final"};
static const char *CLASS_WRAPPERS[] = {"Type", "type"};

/* ASCII names seen so far -> their interned str (the same names recur in every file): an open-addressing table. */
static struct {
    PyObject **v;
    uint64_t *hashes;
    size_t mask, used;
} names;

static uint64_t hash_bytes(const char *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int grow_names(void) {
    size_t size = names.v ? (names.mask + 1) * 2 : 1 << 14;
    PyObject **v = PyMem_Calloc(size, sizeof(PyObject *));
    uint64_t *hashes = PyMem_Calloc(size, sizeof(uint64_t));
    if (!v || !hashes) {
        PyMem_Free(v);
        PyMem_Free(hashes);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; names.v && i <= names.mask; i++) {
        if (!names.v[i])
            continue;
        size_t j = names.hashes[i] & (size - 1);
        while (v[j])
            j = (j + 1) & (size - 1);
        v[j] = names.v[i];
        hashes[j] = names.hashes[i];
    }
    PyMem_Free(names.v);
    PyMem_Free(names.hashes);
    names.v = v;
    names.hashes = hashes;
    names.mask = size - 1;
    return 0;
}

static PyObject *interned_ascii(const char *s, Py_ssize_t n) {
    if (names.used * 2 >= names.mask && grow_names() < 0)
        return NULL;
    uint64_t h = hash_bytes(s, n);
    size_t i = h & names.mask;
    for (; names.v[i]; i = (i + 1) & names.mask)
        if (names.hashes[i] == h && PyUnicode_GET_LENGTH(names.v[i]) == n && memcmp(PyUnicode_DATA(names.v[i]), s, n) == 0)
            return Py_NewRef(names.v[i]);
    PyObject *str = PyUnicode_DecodeASCII(s, n, NULL);
    if (!str)
        return NULL;
    PyUnicode_InternInPlace(&str);
    names.v[i] = Py_NewRef(str);
    names.hashes[i] = h;
    names.used++;
    return str;
}

/* -- small helpers ------------------------------------------------------------------------------------------ */

/* A tuple of `n` new references, stolen; NULL (every non-NULL one released) when one is NULL. Its arguments are
 * evaluated in no set order: pass only values already made where the walk's order matters. */
static PyObject *tup(Py_ssize_t n, ...) {
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

static inline PyObject *ref(PyObject *o) { return Py_NewRef(o); }
static inline PyObject *long_(long v) { return PyLong_FromLong(v); }
static inline PyObject *bool_(int v) { return PyBool_FromLong(v); }
static inline PyObject *empty(void) { return PyTuple_New(0); }
static inline int tag_is(PyObject *ir, PyObject *tag) { return PyUnicode_Compare(PyTuple_GET_ITEM(ir, 0), tag) == 0; }

static int is_one_of(PyObject *str, const char **options, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (PyUnicode_CompareWithASCIIString(str, options[i]) == 0)
            return 1;
    return 0;
}

static void *none_attribute(void) { /* what the Python walker raises reading a field that is not there */
    PyErr_SetString(PyExc_AttributeError, "'NoneType' object has no attribute 'type'");
    return NULL;
}

static void *no_item(void) {
    PyErr_SetString(PyExc_IndexError, "list index out of range");
    return NULL;
}

/* A list's items as a tuple, the list released (stolen). */
static PyObject *as_tuple(PyObject *list) {
    PyObject *out = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    return out;
}

/* Appends `item` (stolen) to `list`; -1 on error (either NULL). */
static int append(PyObject *list, PyObject *item) {
    int rc = item && list ? PyList_Append(list, item) : -1;
    Py_XDECREF(item);
    return rc;
}

/* -- the walker's state (walker.py: WalkerState) ------------------------------------------------------------- */

typedef struct {
    PyObject *id, *kind, *parent, *params, *decorators, *decorator_names, *bases, *returns;
    PyObject *local_names, *global_names, *statements, *called_names;
    long start, end;
    int is_generator;
    Py_ssize_t parent_index; /* the enclosing scope (what `_scope_by_id(scope.parent)` finds), -1 for the module */
} Scope;

typedef struct {
    const char *src;
    Py_ssize_t len;
    int ascii;
    PyObject *module;
    int is_package;
    PyObject *symbols, *seen_attrs, *defined, *jit_calls, *lambda_counts;
    Scope *scopes;
    Py_ssize_t num_scopes, cap_scopes, cur;
    long idx;
    int strong;
} W;

#define SCOPE(w) (&(w)->scopes[(w)->cur])

static void scope_clear(Scope *s) {
    PyObject **fields[] = {&s->id, &s->kind, &s->parent, &s->params, &s->decorators, &s->decorator_names,
                           &s->bases, &s->returns, &s->local_names, &s->global_names, &s->statements,
                           &s->called_names};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        Py_CLEAR(*fields[i]);
}

/* Appends a scope (references stolen); its index, or -1. */
static Py_ssize_t new_scope(W *w, PyObject *id, PyObject *kind_, PyObject *parent, long start, long end,
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
static PyObject *text(W *w, int32_t n) {
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
static PyObject *name(W *w, int32_t n) {
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

static int emit(W *w, PyObject *stmt) { return append(SCOPE(w)->statements, stmt); }

static int bind(W *w, PyObject *nm) {
    int is_global = PySet_Contains(SCOPE(w)->global_names, nm);
    return is_global < 0 ? -1 : is_global ? 0 : PySet_Add(SCOPE(w)->local_names, nm);
}

/* The symbol row (sid, kind, start, end, signature, decorators, bases); signature, decorators, bases stolen. */
static int add_symbol(W *w, PyObject *sid, PyObject *kind_value, int32_t node, PyObject *signature,
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

static PyObject *expr(W *w, int32_t n);
static PyObject *target(W *w, int32_t n);
static PyObject *parameters(W *w, int32_t n);
static PyObject *annotation(W *w, int32_t n);
static PyObject *yield_expr(W *w, int32_t n);
static int statement(W *w, int32_t n);
static int block(W *w, int32_t n);

/* -- expressions.py ----------------------------------------------------------------------------------------- */

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

static PyObject *target(W *w, int32_t n) {
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

static PyObject *call_expr(W *w, int32_t n);
static PyObject *lambda_expr(W *w, int32_t n);
static PyObject *comprehension(W *w, int32_t n);

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

static PyObject *expr(W *w, int32_t n) {
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
static int within(W *w, Py_ssize_t index, int32_t body, long idx, int (*run)(W *, int32_t, Py_ssize_t)) {
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

/* -- statements.py ------------------------------------------------------------------------------------------ */

static PyObject *yield_expr(W *w, int32_t n) {
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

static int expression_statement(W *w, int32_t n) {
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

static int import_statement(W *w, int32_t n) {
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

/* -- definitions.py ----------------------------------------------------------------------------------------- */

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

static PyObject *annotation(W *w, int32_t n) {
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

static PyObject *parameters(W *w, int32_t n) {
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

static int body_block(W *w, int32_t body, Py_ssize_t index) { return block(w, body); }

/* The part of `definition` after the decorators, for a class. */
static int class_definition(W *w, int32_t n, int32_t outer, PyObject *sid, PyObject *nm, PyObject *deco_exprs,
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
static int function_definition(W *w, int32_t n, int32_t outer, PyObject *sid, PyObject *nm, PyObject *deco_exprs,
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

static int definition(W *w, int32_t n) {
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

/* -- extract.py: blocks and compound statements ------------------------------------------------------------- */

static int block(W *w, int32_t n) {
    EACH_NAMED(c, n) {
        w->idx = line_start(c);
        w->strong = 1;
        if (statement(w, c) < 0)
            return -1;
    }
    return 0;
}

static int nested_block(W *w, int32_t n) {
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

static int statement(W *w, int32_t n) {
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
