/* The Python extractor's walk in C (the extension atlas.parse.python._walk): the same packed facts as the Python
 * walker (atlas.parse.python.extract), made from the same tree-sitter tree without a Python object per node. The
 * tree is first copied into a flat array of nodes (tree.c: kind, field, span, child links, read from the runtime's
 * subtrees as a TSTreeCursor would visit them), then walked. Each walking function mirrors the method of the same
 * name in walker.py, expressions.py, statements.py, definitions.py or extract.py (the file of the same name here), in
 * the same order of evaluation, so that both give equal facts: tests/parse/test_native_walk.py checks them on whole
 * pinned trees. A change to one is a change to both.
 *
 * The tree comes from py-tree-sitter (its Tree object holds the TSTree*); scripts/compile.py builds these files with
 * the tree-sitter runtime and py-tree-sitter's object layouts from the sdist of the very version installed. */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
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
enum { K_OTHER, KINDS(AS_ENUM) K_COUNT };
#undef AS_ENUM
#define AS_ENUM(id, text) F_##id,
enum { FIELDS(AS_ENUM) F_COUNT };
#undef AS_ENUM

/* -- the flat tree (tree.c): one entry per visible node, in document order; -1 is "no node" (None) ------------- */

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

extern Flat flat;

#define NODE(i) (&flat.v[i])
#define EACH_NAMED(c, n) for (int32_t c = NODE(n)->first_named; c >= 0; c = NODE(c)->next_named)
#define EACH_CHILD(c, n) for (int32_t c = NODE(n)->first; c >= 0; c = NODE(c)->next)

static inline int kind(int32_t n) { return NODE(n)->kind; }
static inline long line_start(int32_t n) { return (long)NODE(n)->start_row + 1; }
static inline long line_end(int32_t n) { return (long)NODE(n)->end_row + 1; }

/* -- the strings the IR is made of (walker.c), interned ------------------------------------------------------- */

#define STRINGS(X) \
    X(n, "n") X(a, "a") X(c, "c") X(s, "s") X(sl, "sl") X(k, "k") X(l, "l") X(d, "d") X(lam, "lam") X(u, "u") \
    X(it, "it") X(t, "t") X(star, "*") X(starstar, "**") X(assign, "=") X(e, "e") X(ret, "ret") X(y, "y") \
    X(for_, "for") X(raise, "raise") X(imp, "imp") X(from, "from") X(def, "def") X(cls, "cls") X(type, "type") \
    X(empty, "") X(module, "module") X(class_, "class") X(function, "function") X(lambda, "lambda") \
    X(method, "method") X(attribute, "attribute") X(triton_kernel, "triton_kernel") X(dot, ".") X(space, " ") \
    X(quotes, "\"'") X(strip, "strip")

typedef struct {
#define AS_FIELD(id, text) PyObject *id;
    STRINGS(AS_FIELD)
#undef AS_FIELD
} Strings;
extern Strings S;
extern PyObject *UNKNOWN;           /* ("?",) */
extern PyObject *JIT_ATTRIBUTE;     /* ("a", ("n", "triton"), "jit") */
extern PyObject *JIT_NAME;          /* ("n", "jit") */
extern PyObject *string_annotation; /* atlas.parse.python.definitions.string_annotation, set by configure() */

static inline PyObject *ref(PyObject *o) { return Py_NewRef(o); }
static inline PyObject *long_(long v) { return PyLong_FromLong(v); }
static inline PyObject *bool_(int v) { return PyBool_FromLong(v); }
static inline PyObject *empty(void) { return PyTuple_New(0); }
static inline int tag_is(PyObject *ir, PyObject *tag) { return PyUnicode_Compare(PyTuple_GET_ITEM(ir, 0), tag) == 0; }

/* -- the walker's state (walker.c; walker.py: WalkerState) ------------------------------------------------------ */

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

/* -- what the parts share ------------------------------------------------------------------------------------ */

/* tree.c */
int use_language(const TSLanguage *language);
int flatten(const TSTree *tree);
int32_t field(int32_t n, int f);
int32_t named_at(int32_t n, uint32_t i);
PyObject *interned_ascii(const char *s, Py_ssize_t n);
/* walker.c */
PyObject *tup(Py_ssize_t n, ...);
int is_one_of(PyObject *str, const char **options, size_t count);
void *none_attribute(void);
void *no_item(void);
PyObject *as_tuple(PyObject *list);
int append(PyObject *list, PyObject *item);
void scope_clear(Scope *s);
Py_ssize_t new_scope(W *w, PyObject *id, PyObject *kind_, PyObject *parent, long start, long end, PyObject *params,
                     PyObject *decorators, PyObject *decorator_names, PyObject *bases, PyObject *returns);
PyObject *text(W *w, int32_t n);
PyObject *name(W *w, int32_t n);
int emit(W *w, PyObject *stmt);
int bind(W *w, PyObject *nm);
int add_symbol(W *w, PyObject *sid, PyObject *kind_value, int32_t node, PyObject *signature, PyObject *decorators,
               PyObject *bases);
/* expressions.c */
PyObject *target(W *w, int32_t n);
PyObject *expr(W *w, int32_t n);
int within(W *w, Py_ssize_t index, int32_t body, long idx, int (*run)(W *, int32_t, Py_ssize_t));
/* statements.c */
PyObject *yield_expr(W *w, int32_t n);
int expression_statement(W *w, int32_t n);
int import_statement(W *w, int32_t n);
/* definitions.c */
PyObject *annotation(W *w, int32_t n);
PyObject *parameters(W *w, int32_t n);
int definition(W *w, int32_t n);
/* extract.c */
int block(W *w, int32_t n);
int statement(W *w, int32_t n);
