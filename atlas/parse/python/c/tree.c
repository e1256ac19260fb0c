/* The tree the walk reads (walk.h): the grammar's node kinds and fields, the flat copy of a tree-sitter tree read
 * from the runtime's subtrees as a TSTreeCursor visits them, and the interned names read from sources. */

#include "walk.h"

#define AS_TEXT(id, text) text,
static const char *KIND_NAMES[K_COUNT] = {"", KINDS(AS_TEXT)};
static const char *FIELD_NAMES[F_COUNT] = {FIELDS(AS_TEXT)};
#undef AS_TEXT

static struct {
    const TSLanguage *language;
    uint32_t num_symbols;
    uint8_t *kinds;        /* symbol -> K_* */
    uint8_t *is_statement; /* symbol -> its name ends with "_statement" */
    TSFieldId fields[F_COUNT];
} grammar;

int use_language(const TSLanguage *language) {
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

/* -- the flat tree: one entry per visible node, in document order ---------------------------------------------- */

Flat flat; /* reused from file to file */

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
int flatten(const TSTree *tree) {
    flat.n = 0;
    Length start = ts_subtree_padding(tree->root);
    int32_t root = add_node(-1, ts_subtree_symbol(tree->root), ts_subtree_named(tree->root), start,
                            ts_subtree_size(tree->root), 0);
    return root < 0 ? -1 : add_children(tree->language, tree->root, start, root, 0, 0);
}

/* `node.child_by_field_id(f)`: its first child filling that field. */
int32_t field(int32_t n, int f) {
    TSFieldId id = grammar.fields[f];
    EACH_CHILD(c, n)
    if (NODE(c)->field == id)
        return c;
    return -1;
}

/* `node.named_children[i]`, -1 past the end. */
int32_t named_at(int32_t n, uint32_t i) {
    int32_t c = NODE(n)->first_named;
    while (c >= 0 && i--)
        c = NODE(c)->next_named;
    return c;
}

/* -- names read from sources ----------------------------------------------------------------------------- */

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

PyObject *interned_ascii(const char *s, Py_ssize_t n) {
    if (names.used * 2 >= names.mask && grow_names() < 0)
        return NULL;
    uint64_t h = hash_bytes(s, n);
    size_t i = h & names.mask;
    for (; names.v[i]; i = (i + 1) & names.mask)
        if (names.hashes[i] == h && PyUnicode_GET_LENGTH(names.v[i]) == n &&
            memcmp(PyUnicode_DATA(names.v[i]), s, n) == 0)
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

